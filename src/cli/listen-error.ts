/** A listen failure as one line the user can act on (a port in use, an address not on this machine). */
export function listenError(error: unknown, host: string, port: number): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return new Error(`port ${port} on ${host} is in use; pick another with --port`);
  if (code === 'EADDRNOTAVAIL') return new Error(`${host} is not an address of this machine; pick another with --host`);
  if (code === 'EACCES') return new Error(`port ${port} needs privileges on this machine; pick one above 1023 with --port`);
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * A minimal WASI preview1 host for running a command-line WASM program entirely in memory:
 * arguments in, stdout/stderr captured, files written by the program kept in a Map.
 * It implements only the imports the flite build needs; nothing touches the real file system.
 * `WasiCommand` (wasi-command.ts) runs a program over it.
 */

const errno = { success: 0, badf: 8, inval: 28, noent: 44, nosys: 52 } as const;
const filetype = { characterDevice: 2, directory: 3, regularFile: 4 } as const;
const preopenFd = 3;
const preopenName = '/';

/** Thrown by proc_exit to unwind the program; carries the exit code. */
export class ProgramExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

interface OpenFile {
  path: string;
  position: number;
}

/** A growable byte buffer standing in for one file. */
class MemoryFile {
  private bytes = new Uint8Array(64 * 1024);
  length = 0;

  write(at: number, data: Uint8Array): void {
    const end = at + data.length;
    if (end > this.bytes.length) {
      const grown = new Uint8Array(Math.max(end, this.bytes.length * 2));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    this.bytes.set(data, at);
    this.length = Math.max(this.length, end);
  }

  read(at: number, count: number): Uint8Array {
    return this.bytes.subarray(at, Math.min(this.length, at + count));
  }

  contents(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

export interface ProgramRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Files the program created, by the path it opened them with. */
  files: Map<string, Uint8Array>;
}

/** The WASI imports over in-memory files and captured output, for one run at a time. */
export function memoryHost() {
  const files = new Map<string, MemoryFile>();
  const openFiles = new Map<number, OpenFile>();
  let nextFd = preopenFd + 1;
  const out: Uint8Array[] = [];
  const err: Uint8Array[] = [];
  let memory: WebAssembly.Memory | undefined;
  const encoder = new TextEncoder();
  let encodedArgs: Uint8Array[] = [];

  const view = () => new DataView(memory!.buffer);
  const bytes = () => new Uint8Array(memory!.buffer);
  const readString = (ptr: number, len: number) => new TextDecoder().decode(bytes().slice(ptr, ptr + len));

  const iovecs = (ptr: number, count: number): Array<[number, number]> => {
    const v = view();
    const list: Array<[number, number]> = [];
    for (let i = 0; i < count; i++) list.push([v.getUint32(ptr + i * 8, true), v.getUint32(ptr + i * 8 + 4, true)]);
    return list;
  };

  const wasi = {
    args_sizes_get(argcPtr: number, bufSizePtr: number): number {
      const v = view();
      v.setUint32(argcPtr, encodedArgs.length, true);
      v.setUint32(bufSizePtr, encodedArgs.reduce((n, a) => n + a.length, 0), true);
      return errno.success;
    },
    args_get(argvPtr: number, bufPtr: number): number {
      const v = view();
      let at = bufPtr;
      encodedArgs.forEach((arg, i) => {
        v.setUint32(argvPtr + i * 4, at, true);
        bytes().set(arg, at);
        at += arg.length;
      });
      return errno.success;
    },
    clock_time_get(_id: number, _precision: bigint, timePtr: number): number {
      view().setBigUint64(timePtr, BigInt(Math.round(performance.timeOrigin + performance.now())) * 1_000_000n, true);
      return errno.success;
    },
    fd_close(fd: number): number {
      return openFiles.delete(fd) ? errno.success : errno.badf;
    },
    fd_fdstat_get(fd: number, statPtr: number): number {
      const type =
        fd <= 2 ? filetype.characterDevice : fd === preopenFd ? filetype.directory : openFiles.has(fd) ? filetype.regularFile : 0;
      if (type === 0) return errno.badf;
      const v = view();
      v.setUint8(statPtr, type);
      v.setUint16(statPtr + 2, 0, true);
      v.setBigUint64(statPtr + 8, 0xffffffffn, true);
      v.setBigUint64(statPtr + 16, 0xffffffffn, true);
      return errno.success;
    },
    fd_fdstat_set_flags(): number {
      return errno.success;
    },
    fd_prestat_get(fd: number, prestatPtr: number): number {
      if (fd !== preopenFd) return errno.badf;
      const v = view();
      v.setUint8(prestatPtr, 0);
      v.setUint32(prestatPtr + 4, preopenName.length, true);
      return errno.success;
    },
    fd_prestat_dir_name(fd: number, pathPtr: number, len: number): number {
      if (fd !== preopenFd) return errno.badf;
      bytes().set(encoder.encode(preopenName).subarray(0, len), pathPtr);
      return errno.success;
    },
    fd_read(fd: number, iovsPtr: number, iovsLen: number, nreadPtr: number): number {
      const file = openFiles.get(fd);
      let total = 0;
      if (file) {
        const data = files.get(file.path)!;
        for (const [ptr, len] of iovecs(iovsPtr, iovsLen)) {
          const chunk = data.read(file.position, len);
          bytes().set(chunk, ptr);
          file.position += chunk.length;
          total += chunk.length;
          if (chunk.length < len) break;
        }
      } else if (fd !== 0) {
        return errno.badf;
      }
      view().setUint32(nreadPtr, total, true);
      return errno.success;
    },
    fd_seek(fd: number, offset: bigint, whence: number, newOffsetPtr: number): number {
      const file = openFiles.get(fd);
      if (!file) return errno.badf;
      const base = whence === 0 ? 0 : whence === 1 ? file.position : files.get(file.path)!.length;
      const position = base + Number(offset);
      if (position < 0) return errno.inval;
      file.position = position;
      view().setBigUint64(newOffsetPtr, BigInt(position), true);
      return errno.success;
    },
    fd_write(fd: number, iovsPtr: number, iovsLen: number, nwrittenPtr: number): number {
      let total = 0;
      for (const [ptr, len] of iovecs(iovsPtr, iovsLen)) {
        const chunk = bytes().slice(ptr, ptr + len);
        if (fd === 1) out.push(chunk);
        else if (fd === 2) err.push(chunk);
        else {
          const file = openFiles.get(fd);
          if (!file) return errno.badf;
          files.get(file.path)!.write(file.position, chunk);
          file.position += len;
        }
        total += len;
      }
      view().setUint32(nwrittenPtr, total, true);
      return errno.success;
    },
    path_open(
      dirFd: number,
      _dirFlags: number,
      pathPtr: number,
      pathLen: number,
      openFlags: number,
      _rightsBase: bigint,
      _rightsInheriting: bigint,
      _fdFlags: number,
      fdPtr: number,
    ): number {
      if (dirFd !== preopenFd) return errno.badf;
      const path = readString(pathPtr, pathLen);
      const create = (openFlags & 1) !== 0;
      const truncate = (openFlags & 8) !== 0;
      if (!files.has(path) || truncate) {
        if (!create && !files.has(path)) return errno.noent;
        files.set(path, new MemoryFile());
      }
      const fd = nextFd++;
      openFiles.set(fd, { path, position: 0 });
      view().setUint32(fdPtr, fd, true);
      return errno.success;
    },
    proc_exit(code: number): never {
      throw new ProgramExit(code);
    },
  };

  return {
    imports: { wasi_snapshot_preview1: wasi },
    attach(instanceMemory: WebAssembly.Memory): void {
      memory = instanceMemory;
    },
    begin(argv: string[]): void {
      files.clear();
      openFiles.clear();
      nextFd = preopenFd + 1;
      out.length = 0;
      err.length = 0;
      encodedArgs = argv.map((a) => encoder.encode(`${a}\0`));
    },
    collect(exitCode: number): ProgramRun {
      const decoder = new TextDecoder();
      return {
        exitCode,
        stdout: decoder.decode(concat(out)),
        stderr: decoder.decode(concat(err)),
        files: new Map([...files].map(([path, file]) => [path, file.contents()])),
      };
    },
  };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

import { memoryHost, ProgramExit, type ProgramRun } from './wasi-memory-host.js';

/** Options of a reusable WASI command instance. */
export interface WasiCommandOptions {
  /**
   * Memory below this address holds read-only data (see `readOnlyDataEnd`) and is not restored between runs.
   * 0 restores all of the initial memory.
   */
  readOnlyEnd?: number;
  /** After a run that grew the memory by more than this, the instance is dropped and the next run gets a fresh one. */
  maxGrowthBytes?: number;
}

export const defaults: Required<WasiCommandOptions> = { readOnlyEnd: 0, maxGrowthBytes: 16 * 1024 * 1024 };

/**
 * One instance of a WASI command that runs many times. Before each run after the first, the memory the program can
 * write is put back as it was when the instance was made (data, bss, stack; heap growth zeroed), so every run starts
 * as a fresh instance would, without the cost of instantiating (~15-30 ms for flite). The stack pointer is the only
 * mutable global and a run that returns from `_start` leaves it where it started; a run that ends any other way
 * (proc_exit, a trap) drops the instance, and the next run makes a new one.
 */
export class WasiCommand {
  private instance: WebAssembly.Instance | undefined;
  private pristine = new Uint8Array(0);
  private initialLength = 0;
  private dirty = false;
  private readonly host = memoryHost();
  private readonly options: Required<WasiCommandOptions>;
  /** How many instances this command has made. */
  instantiations = 0;

  private constructor(
    private readonly module: WebAssembly.Module,
    options: WasiCommandOptions,
  ) {
    this.options = { ...defaults, ...options };
  }

  /** Instantiates the module (asynchronously, so the caller's thread is not blocked) ready for its first run. */
  static async create(module: WebAssembly.Module, options: WasiCommandOptions = {}): Promise<WasiCommand> {
    const command = new WasiCommand(module, options);
    command.adopt(await WebAssembly.instantiate(module, command.host.imports));
    return command;
  }

  /** Runs the program with the given argv (argv[0] included). */
  run(argv: string[]): ProgramRun {
    if (!this.instance) this.adopt(new WebAssembly.Instance(this.module, this.host.imports));
    else if (this.dirty) this.restore();
    const instance = this.instance!;
    this.dirty = true;
    this.host.begin(argv);
    let exitCode = 0;
    try {
      (instance.exports._start as () => void)();
      if (this.memory().buffer.byteLength - this.initialLength > this.options.maxGrowthBytes) this.drop();
    } catch (error) {
      this.drop();
      if (!(error instanceof ProgramExit)) throw error;
      exitCode = error.code;
    }
    return this.host.collect(exitCode);
  }

  private adopt(instance: WebAssembly.Instance): void {
    this.instance = instance;
    this.instantiations++;
    this.dirty = false;
    const memory = this.memory();
    this.host.attach(memory);
    this.initialLength = memory.buffer.byteLength;
    this.pristine = new Uint8Array(memory.buffer).slice(Math.min(this.options.readOnlyEnd, this.initialLength));
  }

  private restore(): void {
    const bytes = new Uint8Array(this.memory().buffer);
    bytes.set(this.pristine, this.initialLength - this.pristine.length);
    bytes.fill(0, this.initialLength);
  }

  private drop(): void {
    this.instance = undefined;
    this.pristine = new Uint8Array(0);
  }

  private memory(): WebAssembly.Memory {
    return this.instance!.exports.memory as WebAssembly.Memory;
  }
}

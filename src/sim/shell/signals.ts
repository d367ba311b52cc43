// Control flow that unwinds the interpreter: `exit` (and a fatal expansion error) ends the shell,
// `break`/`continue` leave loops. Thrown, caught where the construct ends.

export class ExitSignal {
  constructor(readonly code: number) {}
}

export class LoopSignal {
  constructor(
    readonly kind: "break" | "continue",
    public levels: number,
  ) {}
}

// The TypeScript type a JSON schema describes, read off the schema object itself (declared
// `as const`), so that a file format is declared once: the schema ajv validates with is also the
// type the code reads. It covers what this project's schemas use: enum, the primitive types (one
// or a list), arrays of items, objects of properties (required or optional) and maps of
// additionalProperties.

type Primitive<T> = T extends "string"
  ? string
  : T extends "number" | "integer"
    ? number
    : T extends "boolean"
      ? boolean
      : T extends "null"
        ? null
        : unknown;

type Required<S> = S extends { required: readonly (infer R)[] } ? R : never;

type Props<P, R> = {
  -readonly [K in keyof P as K extends R ? K : never]: FromSchema<P[K]>;
} & {
  -readonly [K in keyof P as K extends R ? never : K]?: FromSchema<P[K]>;
};

type Flat<T> = { [K in keyof T]: T[K] } & {};

type ObjectOf<S> = S extends { properties: infer P }
  ? Flat<Props<P, Required<S>>>
  : S extends { additionalProperties: infer A }
    ? A extends object
      ? Record<string, FromSchema<A>>
      : Record<string, unknown>
    : Record<string, unknown>;

/** The value a schema validates, as a type. */
export type FromSchema<S> = S extends { enum: readonly (infer E)[] }
  ? E
  : S extends { type: "array"; items: infer I }
    ? FromSchema<I>[]
    : S extends { type: "object" }
      ? ObjectOf<S>
      : S extends { type: readonly (infer T)[] }
        ? Primitive<T>
        : S extends { type: infer T }
          ? Primitive<T>
          : unknown;

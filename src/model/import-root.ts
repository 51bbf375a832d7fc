/** A folder the importer reads, and the kind of media it holds. */
export type RootKind = 'tv' | 'movies' | 'videos';

export interface ImportRoot {
  kind: RootKind;
  path: string;
}

/**
 * A matrix tile of the examples (POTRF's dense tiles, BSpMM's irregular ones): `rows x cols`
 * doubles in column-major order, held in a `ttg.Buffer` so device tasks can work on it anywhere.
 * Tiles travel between ranks as split metadata: the shape in the header, the doubles as one raw
 * payload part received straight into the new tile's buffer.
 */
import * as ttg from 'ttg';

/** One tile of a tiled matrix. */
export class Tile {
  /** The tile's doubles, column-major, leading dimension `rows`. */
  readonly buf: ttg.Buffer<Float64Array>;

  constructor(readonly rows: number, readonly cols: number, data?: Float64Array) {
    this.buf = new ttg.Buffer(data ?? new Float64Array(rows * cols));
  }

  /** Size of the payload in bytes. */
  get bytes(): number {
    return this.rows * this.cols * 8;
  }
}

interface TileMeta {
  rows: number;
  cols: number;
}

ttg.register_split_metadata(Tile, {
  get_metadata: (t: Tile): TileMeta => ({ rows: t.rows, cols: t.cols }),
  get_data: (t: Tile) => [t.buf.host],
  create_from_metadata: (m: TileMeta) => new Tile(m.rows, m.cols),
});

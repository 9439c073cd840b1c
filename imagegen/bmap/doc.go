// Package bmap writes the block map (.bmap file) of a sparse disk image:
// the list of 4096-byte blocks that hold data, each run of them with its
// SHA-256, so that `bmaptool copy` can flash a board by writing only those
// blocks and can refuse an image that no longer matches its map.
//
// The output is byte for byte what bmap-tools 3.6 (`bmaptool create`)
// writes for the same image, format version 2.0 with sha256 checksums,
// comment text and whitespace included, so a map can be checked against
// the reference tool with a plain diff.
//
// It never modifies, syncs or writes next to the image (bmaptool creates a
// temporary file beside it to probe for SEEK_HOLE; this package does not
// need to), never guesses which blocks are empty by looking for zeros (a
// zero block that is allocated is data, as in bmaptool), and never puts
// anything in the map that depends on the clock, the host or the path:
// the same image always gives the same bytes.
package bmap

package bmap

// extent is a byte range [off, end) of the image that the filesystem
// reports as data.
type extent struct {
	off, end int64
}

// blockRange is an inclusive run of mapped blocks, First..Last, the way a
// <Range> element names it.
type blockRange struct {
	first, last int64
}

// toBlocks turns data extents, in increasing order, into runs of whole
// blocks of size bs. A block is mapped if any byte of it is data, so
// extents are widened to block boundaries; on a filesystem whose own block
// is smaller than bs two extents can then touch or overlap, and they are
// merged so that no block is listed (or copied) twice.
func toBlocks(exts []extent, bs int64) []blockRange {
	var out []blockRange
	for _, e := range exts {
		if e.end <= e.off {
			continue
		}
		r := blockRange{first: e.off / bs, last: (e.end+bs-1)/bs - 1}
		if n := len(out); n > 0 && r.first <= out[n-1].last+1 {
			if r.last > out[n-1].last {
				out[n-1].last = r.last
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

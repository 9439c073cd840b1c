package bmap

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// header is _BMAP_START_TEMPLATE from bmaptools/BmapCreate.py (3.6),
// verbatim, typos included: the map is compared byte for byte with
// bmaptool's, and a bmap's own checksum covers its comments too.
const header = `<?xml version="1.0" ?>
<!-- This file contains the block map for an image file, which is basically
     a list of useful (mapped) block numbers in the image file. In other words,
     it lists only those blocks which contain data (boot sector, partition
     table, file-system metadata, files, directories, extents, etc). These
     blocks have to be copied to the target device. The other blocks do not
     contain any useful data and do not have to be copied to the target
     device.

     The block map an optimization which allows to copy or flash the image to
     the image quicker than copying of flashing the entire image. This is
     because with bmap less data is copied: <MappedBlocksCount> blocks instead
     of <BlocksCount> blocks.

     Besides the machine-readable data, this file contains useful commentaries
     which contain human-readable information like image size, percentage of
     mapped data, etc.

     The 'version' attribute is the block map file format version in the
     'major.minor' format. The version major number is increased whenever an
     incompatible block map format change is made. The minor number changes
     in case of minor backward-compatible changes. -->

<bmap version="%s">
    <!-- Image size in bytes: %s -->
    <ImageSize> %d </ImageSize>

    <!-- Size of a block in bytes -->
    <BlockSize> %d </BlockSize>

    <!-- Count of blocks in the image file -->
    <BlocksCount> %d </BlocksCount>

`

const (
	formatVersion = "2.0"
	checksumType  = "sha256"
	// maxPercent is the widest percentage, the room bmaptool leaves for it.
	maxPercent = "100.0%"
)

// mappedRange is a blockRange with the SHA-256 of its bytes.
type mappedRange struct {
	blockRange
	sum [sha256.Size]byte
}

// render returns the bmap document. It follows BmapCreate.generate step
// by step rather than formatting the final text directly, because
// bmaptool's output depends on its steps: it writes blank placeholders
// sized for the image before it knows the mapped counts, then overwrites
// them in place. A mapped size whose text is longer than the image size's
// (a 1-byte image maps "4.0 KiB") eats into the spaces that follow, and
// a shorter one leaves trailing blanks; only replaying the overwrite gives
// the same bytes.
func render(st Stats, ranges []mappedRange) []byte {
	var b bytes.Buffer
	imageHuman := humanSize(st.ImageSize)
	fmt.Fprintf(&b, header, formatVersion, imageHuman, st.ImageSize, st.BlockSize, st.Blocks)

	b.WriteString("    <!-- Count of mapped blocks: ")
	mappedCommentPos := b.Len()
	b.WriteString(blanks(len(imageHuman)) + " or " + blanks(len(maxPercent)) + "   -->\n")
	b.WriteString("    <MappedBlocksCount> ")
	mappedCountPos := b.Len()
	b.WriteString(blanks(len(strconv.FormatInt(st.Blocks, 10))) + " </MappedBlocksCount>\n\n")

	b.WriteString("    <!-- Type of checksum used in this file -->\n")
	b.WriteString("    <ChecksumType> " + checksumType + " </ChecksumType>\n\n")
	b.WriteString("    <!-- The checksum of this bmap file. When it is calculated, the value of\n")
	b.WriteString("         the checksum has be zero (all ASCII \"0\" symbols).  -->\n")
	b.WriteString("    <BmapFileChecksum> ")
	checksumPos := b.Len()
	b.WriteString(strings.Repeat("0", 2*sha256.Size) + " </BmapFileChecksum>\n\n")

	b.WriteString("    <!-- The block map which consists of elements which may either be a\n")
	b.WriteString("         range of blocks or a single block. The 'chksum' attribute\n")
	b.WriteString("         (if present) is the checksum of this blocks range. -->\n")
	b.WriteString("    <BlockMap>\n")
	for _, r := range ranges {
		sum := hex.EncodeToString(r.sum[:])
		if r.first == r.last {
			fmt.Fprintf(&b, "        <Range chksum=\"%s\"> %d </Range>\n", sum, r.first)
		} else {
			fmt.Fprintf(&b, "        <Range chksum=\"%s\"> %d-%d </Range>\n", sum, r.first, r.last)
		}
	}
	b.WriteString("    </BlockMap>\n")
	b.WriteString("</bmap>\n")

	doc := b.Bytes()
	mappedSize := st.MappedBlocks * int64(st.BlockSize)
	percent := float64(st.MappedBlocks) * 100.0 / float64(st.Blocks)
	doc = overwrite(doc, mappedCommentPos,
		humanSize(mappedSize)+" or "+strconv.FormatFloat(percent, 'f', 1, 64)+"%")
	doc = overwrite(doc, mappedCountPos, strconv.FormatInt(st.MappedBlocks, 10))

	// The file's checksum is taken with its own field still all zeros,
	// which is how bmaptool copy recomputes it.
	sum := sha256.Sum256(doc)
	return overwrite(doc, checksumPos, hex.EncodeToString(sum[:]))
}

// overwrite writes s over doc at pos, like a write after a seek into a
// file, extending doc only if s runs past its end.
func overwrite(doc []byte, pos int, s string) []byte {
	n := copy(doc[pos:], s)
	return append(doc, s[n:]...)
}

func blanks(n int) string { return strings.Repeat(" ", n) }

// humanSize is BmapHelpers.human_size. Its float64 steps and "%.1f"
// rounding are the same in Go and Python (IEEE division, correctly
// rounded shortest-to-fixed conversion), so the text matches exactly.
func humanSize(size int64) string {
	if size == 1 {
		return "1 byte"
	}
	if size < 512 {
		return strconv.FormatInt(size, 10) + " bytes"
	}
	f := float64(size)
	for _, unit := range []string{"KiB", "MiB", "GiB", "TiB"} {
		f /= 1024.0
		if f < 1024 {
			return strconv.FormatFloat(f, 'f', 1, 64) + " " + unit
		}
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " EiB"
}

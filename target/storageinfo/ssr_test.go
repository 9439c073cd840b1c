package storageinfo

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// kernelSSRText prints an SD Status as Linux's sysfs does
// (drivers/mmc/core/sd.c): each 32-bit word of the register as the card
// sent it goes through be32_to_cpu into raw_ssr[i], and mmc_ssr_show
// prints raw_ssr[0..15] with %08x.
func kernelSSRText(reg []byte) (string, [16]uint32) {
	var words [16]uint32
	var b strings.Builder
	for i := range words {
		words[i] = binary.BigEndian.Uint32(reg[4*i:]) // be32_to_cpu on any CPU
		fmt.Fprintf(&b, "%08x", words[i])
	}
	return b.String() + "\n", words
}

// unstuff is the kernel's UNSTUFF_BITS on a four-word response: bit 0 is
// resp[3]'s least significant bit.
func unstuff(resp []uint32, start, size int) uint32 {
	off, shift := 3-start/32, start&31
	v := resp[off] >> shift
	if size+shift > 32 {
		v |= resp[off-1] << ((32 - shift) % 32)
	}
	return v & (1<<size - 1)
}

// The kernel reads AU_SIZE, ERASE_SIZE, ERASE_TIMEOUT, ERASE_OFFSET and
// DISCARD_SUPPORT out of raw_ssr itself (mmc_read_ssr); whatever the
// register holds, parsing the sysfs text must give the fields the kernel
// extracts from the same words.
func TestSSRTextMatchesKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		reg := make([]byte, SSRSize)
		for i := range reg {
			reg[i] = byte(rng.Uint32())
		}
		text, raw := kernelSSRText(reg)
		b, err := ParseSSRText(text)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := DecodeSSR(b)
		top := raw[:4]
		for name, c := range map[string][2]uint32{
			"AU_SIZE":         {uint32(s.AUSize), unstuff(top, 428-384, 4)},
			"ERASE_SIZE":      {uint32(s.EraseSize), unstuff(top, 408-384, 16)},
			"ERASE_TIMEOUT":   {uint32(s.EraseTimeout), unstuff(top, 402-384, 6)},
			"ERASE_OFFSET":    {uint32(s.EraseOffset), unstuff(top, 400-384, 2)},
			"DISCARD_SUPPORT": {uint32(b2u(s.DiscardSupport)), unstuff([]uint32{0, 0, 0, raw[6]}, 313-288, 1)},
		} {
			if c[0] != c[1] {
				t.Fatalf("%s: decoded %d, the kernel reads %d from %s", name, c[0], c[1], text)
			}
		}
	}
	// Printed the other way, with each word's bytes swapped (a little-endian
	// CPU without be32_to_cpu), the same register must decode differently:
	// the check above can tell the orders apart.
	reg := make([]byte, SSRSize)
	reg[7], reg[10] = 0x55, 0x90 // SPEED_CLASS byte and AU_SIZE nibble's byte
	swapped := make([]byte, SSRSize)
	for i := 0; i < SSRSize; i += 4 {
		binary.LittleEndian.PutUint32(swapped[i:], binary.BigEndian.Uint32(reg[i:]))
	}
	a, _ := DecodeSSR(reg)
	b, _ := DecodeSSR(swapped)
	if a.AUSize == b.AUSize {
		t.Error("byte order does not show in AU_SIZE")
	}
}

// ssrWith is a synthetic SD Status with the given fields set: no real
// card's SD Status was found published (see testdata/README.md).
func ssrWith(fields map[[2]int]uint64) []byte {
	reg := make([]byte, SSRSize)
	for hl, v := range fields {
		for bit := hl[1]; bit <= hl[0]; bit++ {
			if v>>(bit-hl[1])&1 == 1 {
				reg[SSRSize-1-bit/8] |= 1 << (bit % 8)
			}
		}
	}
	return reg
}

func TestDecodeSSR(t *testing.T) {
	reg := ssrWith(map[[2]int]uint64{
		{511, 510}: 2, {447, 440}: 4, {439, 432}: 0, {431, 428}: 9, {423, 408}: 0x10, {407, 402}: 0x0c,
		{401, 400}: 1, {399, 396}: 3, {395, 392}: 9, {391, 384}: 30, {377, 368}: 16, {339, 336}: 2,
		{313, 313}: 1, {312, 312}: 0,
	})
	s, err := DecodeSSR(reg)
	if err != nil {
		t.Fatal(err)
	}
	want := SSR{BusWidth: 2, SpeedClass: 4, AUSize: 9, EraseSize: 16, EraseTimeout: 12, EraseOffset: 1,
		UHSSpeedGrade: 3, UHSAUSize: 9, VideoSpeedClass: 30, VSCAUSize: 16, AppPerfClass: 2, DiscardSupport: true}
	if s != want {
		t.Errorf("decoded %+v\nwant    %+v", s, want)
	}
	var f SDFacts
	ssrFacts(&f, s, true)
	wantFact(t, "ssr_au_size", f.AUSize, 4<<20, "bytes")
	wantFact(t, "ssr_uhs_au_size", f.UHSAUSize, 4<<20, "bytes")
	wantFact(t, "ssr_vsc_au_size", f.VSCAUSize, 16<<20, "bytes")
	wantFact(t, "ssr_erase_timeout", f.EraseTimeout, 12, "s")
	for name, c := range map[string][2]string{
		"speed class": {f.SpeedClass.Text, "Class 10"}, "uhs": {f.UHSSpeedGrade.Text, "U3"},
		"video": {f.VideoSpeedClass.Text, "V30"}, "app": {f.AppPerfClass.Text, "A2"},
		"discard": {f.DiscardSupport.Text, "1 (yes)"}, "fule": {f.FULESupport.Text, "0 (no)"},
	} {
		if c[0] != c[1] {
			t.Errorf("%s = %q, want %q", name, c[0], c[1])
		}
	}
	// AU codes above 4 MiB are the SD 3.00 specification's.
	big := SSR{AUSize: 0x0b}
	if _, why := big.AU(false); why == "" {
		t.Error("AU_SIZE 0xb accepted from a card older than SD 3.00")
	}
	if au, _ := big.AU(true); au != 12<<20 {
		t.Errorf("AU_SIZE 0xb = %d, want 12 MiB", au)
	}
	if _, why := (SSR{}).AU(true); why == "" {
		t.Error("AU_SIZE 0 gave a size")
	}
}

// The SCR of usbsdmux's Samsung GF8S5 (512 GB): SD_SPEC 2 with SD_SPEC3,
// SD_SPEC4 and SD_SPECX 2, a card of the 6.xx specification.
func TestSCRVersion(t *testing.T) {
	for hex, want := range map[string]string{
		"0205848700000000": "6.xx", "0235800001000000": "3.0x", "0225000000000000": "2.00", "0125000000000000": "1.10",
	} {
		b, _ := parseHexRegister(hex, 8)
		if s, _ := DecodeSCR(b); s.Version() != want {
			t.Errorf("SCR %s: version %s, want %s", hex, s.Version(), want)
		}
	}
}

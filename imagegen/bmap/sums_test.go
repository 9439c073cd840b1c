package bmap

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// mapWith returns the map of the image at path written by s (by the
// package's WriteFile when s is nil).
func mapWith(t *testing.T, path string, s *Sums) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	if s == nil {
		_, err = WriteFile(&buf, f)
	} else {
		_, err = s.WriteFile(&buf, f)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sumsOver returns the Sums of the image at path, added region by region
// between the offsets cuts (the image's start and end are added).
func sumsOver(t *testing.T, path string, cuts ...int64) *Sums {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	s := NewSums()
	bounds := append(append([]int64{0}, cuts...), fi.Size())
	for i := 1; i < len(bounds); i++ {
		if err := s.Add(f, bounds[i-1], bounds[i]); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestSumsGiveTheSameMap: however the image is cut into regions (block
// boundaries, cuts inside a block, cuts through a run of data), the map
// written with the sums taken ahead is the map written without them.
func TestSumsGiveTheSameMap(t *testing.T) {
	dir := t.TempDir()
	for _, img := range testImages {
		path := create(t, dir, img)
		want := mapWith(t, path, nil)
		for _, cuts := range [][]int64{
			nil,
			{mib},
			{mib + 100, 5*mib + BlockSize},
			{BlockSize / 2, 3*mib + 1},
			{img.size / 3, 2 * img.size / 3},
		} {
			t.Run(fmt.Sprintf("%s/%v", img.name, cuts), func(t *testing.T) {
				if got := mapWith(t, path, sumsOver(t, path, cuts...)); !bytes.Equal(got, want) {
					t.Errorf("the map with sums differs from the map without:\n%s", firstDiff(got, want))
				}
			})
		}
	}
}

// TestSumsAreTakenAndForgotten: a run hashed ahead is not read again (a
// change the writer does not report keeps the old sum, which is how the
// test can see it); a change the writer reports with Forget is hashed
// afresh; and a block a region's end cuts is never taken ahead.
func TestSumsAreTakenAndForgotten(t *testing.T) {
	dir := t.TempDir()
	if !holesSupported(t, dir) {
		t.Skip("the test filesystem does not report holes")
	}
	img := image{name: "runs", size: 4 * mib, writes: []write{
		{0, pattern(2*BlockSize, 1)},
		{mib, pattern(3*BlockSize, 2)},
	}}
	path := create(t, dir, img)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := sumsOver(t, path, 2*mib)
	before := mapWith(t, path, nil)

	if _, err := f.WriteAt([]byte("changed"), mib+BlockSize); err != nil {
		t.Fatal(err)
	}
	fresh := mapWith(t, path, nil)
	if bytes.Equal(fresh, before) {
		t.Fatal("changing a mapped block did not change the map")
	}
	if got := mapWith(t, path, s); !bytes.Equal(got, before) {
		t.Errorf("the run's sum was not taken from Sums: the map has the new bytes' sum")
	}
	s.Forget(mib+BlockSize, mib+BlockSize+7)
	if got := mapWith(t, path, s); !bytes.Equal(got, fresh) {
		t.Errorf("after Forget, the map still has the old sum:\n%s", firstDiff(got, fresh))
	}

	// A region ending inside the first run's second block: that block,
	// and so the run, is not taken ahead, and a later write beside the
	// region shows in the map.
	s = NewSums()
	if err := s.Add(f, 0, BlockSize+100); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("beside"), BlockSize+200); err != nil {
		t.Fatal(err)
	}
	if got, fresh := mapWith(t, path, s), mapWith(t, path, nil); !bytes.Equal(got, fresh) {
		t.Errorf("a run with a block the region cut was taken ahead:\n%s", firstDiff(got, fresh))
	}
}

package console

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/fsbench/fsbench/wire/resultframe"
)

// Store is a results file on the host: one JSON result per line, as the
// runner's own journal on the target, appended and synced one by one. A
// result whose run and sequence number the file already holds is not
// written again, so following a console twice, or a runner that delivers
// a result again after a power cut, stores it once.
type Store struct {
	f    *os.File
	seen map[key]bool
}

type key struct {
	run string
	seq uint64
}

// OpenStore opens (or creates) the results file at path.
func OpenStore(path string) (*Store, error) {
	s := &Store{seen: map[key]bool{}}
	// A file that is there is read for the results it holds already;
	// anything but a regular file (a pipe, a device) is only written.
	var old []resultframe.Result
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		if old, err = ReadResults(path); err != nil {
			return nil, err
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, r := range old {
		s.seen[key{r.RunID, r.Seq}] = true
	}
	var err error
	if s.f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
		return nil, err
	}
	return s, nil
}

// Append writes r unless the store holds it already.
func (s *Store) Append(r resultframe.Result) error {
	k := key{r.RunID, r.Seq}
	if s.seen[k] {
		return nil
	}
	b, err := json.Marshal(r)
	if err == nil {
		_, err = s.f.Write(append(b, '\n'))
	}
	if err == nil {
		err = s.f.Sync()
		if errors.Is(err, syscall.EINVAL) {
			err = nil // a device or pipe that cannot sync
		}
	}
	if err != nil {
		return &StoreError{Result: r, Err: err}
	}
	s.seen[k] = true
	return nil
}

// StoreError is a result that could not be stored: Follow ends with it,
// as a result lost is a run that cannot be trusted.
type StoreError struct {
	Result resultframe.Result
	Err    error
}

func (e *StoreError) Error() string {
	return fmt.Sprintf("storing result %d of run %s: %v", e.Result.Seq, e.Result.RunID, e.Err)
}

func (e *StoreError) Unwrap() error { return e.Err }

// Close closes the file.
func (s *Store) Close() error { return s.f.Close() }

// ReadResults reads a results file.
func ReadResults(path string) ([]resultframe.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []resultframe.Result
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, resultframe.MaxPayload+1024)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var r resultframe.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return out, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

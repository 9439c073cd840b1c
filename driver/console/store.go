package console

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

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
	old, err := ReadResults(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, r := range old {
		s.seen[key{r.RunID, r.Seq}] = true
	}
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
	if err != nil {
		return err
	}
	if _, err := s.f.Write(append(b, '\n')); err != nil {
		return err
	}
	if err := s.f.Sync(); err != nil {
		return err
	}
	s.seen[k] = true
	return nil
}

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

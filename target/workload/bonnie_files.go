package workload

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"golang.org/x/sys/unix"
)

// bonnie++ 1.03's file tests with -n N (N*1024 empty files, one
// directory): create, stat and delete the files in sequential order, then
// create, stat and delete them in random order. The sequential names start
// with the file's number in hex and the random ones end with it, so that
// the first set is created in name order and the second is not; the stat
// and delete passes go in directory order (readdir) the first time and in
// a shuffled order the second. Making the names, the directory and the
// shuffles is not timed; removing the directory is part of the delete.

const bonNameChars = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

func bonnieFileTests(ctx context.Context, dir string, n int, seed uint64) ([]bonTest, error) {
	rng := rand.New(rand.NewPCG(seed, 'n'))
	var out []bonTest
	for _, random := range []bool{false, true} {
		prefix := "seq_"
		if random {
			prefix = "ran_"
		}
		names := bonNames(rng, n, random)
		if err := os.Mkdir(dir, 0o700); err != nil {
			return nil, fmt.Errorf("bonnie: %w", err)
		}
		d, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("bonnie: %w", err)
		}
		t := &bonDir{ctx: ctx, path: dir, fd: d, names: names}
		shuffle := func() { bonShuffle(rng, names) }
		steps := []bonStep{{"create", nil, t.create}, {"stat", nil, t.statDirOrder}, {"del", nil, t.deleteDirOrder}}
		if random {
			steps[1] = bonStep{"stat", shuffle, t.statListed}
			steps[2] = bonStep{"del", shuffle, t.deleteListed}
		}
		for _, s := range steps {
			if s.prepare != nil {
				s.prepare()
			}
			r, err := timeCPU(s.run)
			if err != nil {
				unix.Close(d)
				os.RemoveAll(dir)
				return nil, fmt.Errorf("bonnie %s%s: %w", prefix, s.name, err)
			}
			r.name = prefix + s.name
			out = append(out, r)
		}
		unix.Close(d)
	}
	return out, nil
}

// bonStep is one timed test; prepare runs before the clock starts.
type bonStep struct {
	name    string
	prepare func()
	run     func() error
}

// bonNames is make_names: the file's number in seven hex digits and up to
// 12 random letters and digits, after the number or, for the random test,
// before it.
func bonNames(rng *rand.Rand, n int, random bool) []string {
	names := make([]string, n)
	buf := make([]byte, 0, 12)
	for i := range names {
		buf = buf[:0]
		for range rng.IntN(13) {
			buf = append(buf, bonNameChars[rng.IntN(len(bonNameChars))])
		}
		if random {
			names[i] = fmt.Sprintf("%s%07x", buf, i)
		} else {
			names[i] = fmt.Sprintf("%07x%s", i, buf)
		}
	}
	return names
}

// bonShuffle is random_sort: swap every name with a random one.
func bonShuffle(rng *rand.Rand, names []string) {
	for i := range names {
		j := rng.IntN(len(names))
		names[i], names[j] = names[j], names[i]
	}
}

// bonDir is the directory of one round of file tests.
type bonDir struct {
	ctx   context.Context
	path  string
	fd    int
	names []string
}

func (t *bonDir) create() error {
	for i, name := range t.names {
		if i%256 == 0 && t.ctx.Err() != nil {
			return t.ctx.Err()
		}
		fd, err := unix.Openat(t.fd, name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return fmt.Errorf("creating %s: %w", name, err)
		}
		if err := unix.Close(fd); err != nil {
			return err
		}
	}
	return nil
}

// stat is stat_file for an empty file: bonnie++ reads only files with data.
func (t *bonDir) stat(name string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(t.fd, name, &st, 0); err != nil {
		return fmt.Errorf("stat %s: %w", name, err)
	}
	return nil
}

func (t *bonDir) unlink(name string) error {
	if err := unix.Unlinkat(t.fd, name, 0); err != nil {
		return fmt.Errorf("deleting %s: %w", name, err)
	}
	return nil
}

// eachEntry calls fn for the directory's entries as readdir returns them,
// and checks that they are the files created.
func (t *bonDir) eachEntry(fn func(string) error) error {
	d, err := os.Open(t.path)
	if err != nil {
		return err
	}
	defer d.Close()
	count := 0
	for {
		if t.ctx.Err() != nil {
			return t.ctx.Err()
		}
		names, err := d.Readdirnames(256)
		for _, name := range names {
			if name[0] == '.' {
				continue
			}
			if err := fn(name); err != nil {
				return err
			}
			count++
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if count != len(t.names) {
		return fmt.Errorf("expected %d files but only got %d", len(t.names), count)
	}
	return nil
}

func (t *bonDir) statDirOrder() error { return t.eachEntry(t.stat) }

func (t *bonDir) deleteDirOrder() error {
	if err := t.eachEntry(t.unlink); err != nil {
		return err
	}
	return unix.Rmdir(t.path)
}

func (t *bonDir) statListed() error {
	for i, name := range t.names {
		if i%256 == 0 && t.ctx.Err() != nil {
			return t.ctx.Err()
		}
		if err := t.stat(name); err != nil {
			return err
		}
	}
	return nil
}

func (t *bonDir) deleteListed() error {
	for i, name := range t.names {
		if i%256 == 0 && t.ctx.Err() != nil {
			return t.ctx.Err()
		}
		if err := t.unlink(name); err != nil {
			return err
		}
	}
	return unix.Rmdir(t.path)
}

package debpkg

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/fsbench/fsbench/internal/command"
)

// ShowMany returns the fields of apt's candidate version of each of names
// (name:arch), by package name, from one apt-cache call. Every apt call
// reads all the package lists first, which takes seconds where apt keeps
// no binary cache (Docker's Debian images), so a walk through a package's
// dependencies asks for a whole level at once. Names apt does not know,
// and purely virtual packages, are missing from the result; unlike Show,
// ShowMany never runs apt-get update. Answers are kept in cacheDir as
// Show keeps them.
func ShowMany(ctx context.Context, cacheDir string, names []string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	if len(names) == 0 {
		return out, nil
	}
	b, err := aptCacheShow(ctx, cacheDir, names)
	if err != nil {
		var ce *command.Error
		if errors.As(err, &ce) && strings.Contains(ce.Stderr, "No packages found") {
			return out, nil
		}
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	fields := map[string]string{}
	flush := func() {
		if name := fields["Package"]; name != "" && out[name] == nil {
			out[name] = fields
		}
		fields = map[string]string{}
	}
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			flush()
			continue
		}
		if k, val, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, " ") {
			fields[k] = strings.TrimSpace(val)
		}
	}
	flush()
	return out, sc.Err()
}

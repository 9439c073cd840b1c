package diag

import (
	"fmt"

	"github.com/fsbench/fsbench/internal/suggest"
)

// DidYouMean is " Did you mean "x"?" for the option closest to given, to
// append to a detail, or "" when none is close.
func DidYouMean(given string, options []string) string {
	if s := suggest.Closest(given, options); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return ""
}

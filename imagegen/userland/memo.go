package userland

import (
	"strings"
	"sync"
)

// Asking apt which versions to take costs seconds per call on a machine
// without apt's binary cache, and a build asks the same question for each
// variant of a spec. The answers, and the layers made from them, are kept
// for the life of the process: the packages behind them are fixed by
// version in the cache directory, so a later build gets the same bytes.
var (
	busyboxMemo sync.Map // key -> *Busybox
	toolsMemo   sync.Map // key -> *Tools
)

func memoKey(parts ...string) string { return strings.Join(parts, "\x00") }

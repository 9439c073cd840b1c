package workload

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// SQL runs script with sqlite3 on db and returns how long the process
// took. -bail stops at the first error, which is then reported.
func SQL(ctx context.Context, bin, db, script string) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, bin, "-bail", db)
	cmd.Stdin = strings.NewReader(script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr // the pragmas print their new values
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("sqlite3: %v: %s", err, strings.TrimSpace(LastLine(stderr.String())))
	}
	if msg := stderr.String(); strings.Contains(msg, "Error") {
		return d, fmt.Errorf("sqlite3: %s", strings.TrimSpace(LastLine(msg)))
	}
	return d, nil
}

// LastLine is the last line of s, without its newline.
func LastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

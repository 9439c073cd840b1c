// Package debpkg fetches Debian packages for the QEMU target without
// installing them on the host: it asks apt which version is current,
// downloads the .deb with `apt-get download` and unpacks its data with
// `dpkg -x` into a cache entry keyed by package, version and architecture.
// Nothing is registered in the host's dpkg database and no maintainer
// script runs. Commands run without a shell, with LC_ALL=C so their
// messages can be recognised. It takes Debian's architecture names
// (package arch spells them) and must never change the host's apt or dpkg
// configuration itself: a missing foreign architecture is an error that
// says how to add it.
package debpkg

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/command"
)

// Package is one version of a binary package for one architecture.
type Package struct {
	Name    string // e.g. "busybox-static"
	Version string // Debian version, e.g. "1:1.35.0-4+b3"
	Arch    string // Debian architecture, e.g. "amd64"
}

// String is the apt form name:arch=version.
func (p Package) String() string { return p.Name + ":" + p.Arch + "=" + p.Version }

// Errors that tell the user what to do.
var (
	ErrForeignArchNotConfigured = errors.New("foreign architecture not configured in dpkg")
	ErrUnreachable              = errors.New("apt cannot reach the Debian mirror")
	ErrNoPackage                = errors.New("no such package known to apt")
)

// CheckArch fails unless apt can fetch packages of the Debian architecture
// da: the host's own, or one added with dpkg --add-architecture.
func CheckArch(ctx context.Context, da string) error {
	out, err := run(ctx, "", "dpkg", "--print-architecture")
	if err != nil {
		return err
	}
	host := strings.TrimSpace(string(out))
	if da == host {
		return nil
	}
	out, err = run(ctx, "", "dpkg", "--print-foreign-architectures")
	if err != nil {
		return err
	}
	if slices.Contains(strings.Fields(string(out)), da) {
		return nil
	}
	return fmt.Errorf("%w: Debian's %s packages need the %s package lists on this %s host; "+
		"run once, as root: dpkg --add-architecture %s && apt-get update "+
		"(fsbench does not change the host's apt configuration itself)",
		ErrForeignArchNotConfigured, da, da, host, da)
}

// Show returns the fields of apt's candidate version of name (name:arch).
// When apt knows no such package it runs `apt-get update` once, since a
// fresh machine may have no package lists at all. Answers are kept in
// cacheDir (none when empty) for as long as apt's state is unchanged.
func Show(ctx context.Context, log logrus.FieldLogger, cacheDir, name string) (map[string]string, error) {
	fields, err := show(ctx, cacheDir, name)
	if errors.Is(err, ErrNoPackage) {
		log.Warnf("apt knows no %s; running apt-get update once to fetch package lists", name)
		if _, uerr := run(ctx, "", "apt-get", "update"); uerr != nil {
			return nil, fmt.Errorf("apt-get update: %w", classify(uerr))
		}
		fields, err = show(ctx, cacheDir, name)
	}
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", name, err)
	}
	return fields, nil
}

func show(ctx context.Context, cacheDir, pkg string) (map[string]string, error) {
	out, err := aptCacheShow(ctx, cacheDir, []string{pkg})
	if err != nil {
		var ce *command.Error
		if errors.As(err, &ce) && strings.Contains(ce.Stderr, "No packages found") {
			return nil, ErrNoPackage
		}
		return nil, err
	}
	fields := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			break // only the first stanza: the candidate
		}
		if k, val, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, " ") {
			fields[k] = strings.TrimSpace(val)
		}
	}
	if len(fields) == 0 {
		return nil, ErrNoPackage
	}
	return fields, nil
}

// Candidate is the version of name that apt would install for da, with
// apt's answer kept in cacheDir as Show keeps it.
func Candidate(ctx context.Context, log logrus.FieldLogger, cacheDir, name, da string) (Package, error) {
	if err := CheckArch(ctx, da); err != nil {
		return Package{}, err
	}
	f, err := Show(ctx, log, cacheDir, name+":"+da)
	if err != nil {
		return Package{}, err
	}
	if f["Version"] == "" {
		return Package{}, fmt.Errorf("apt shows no version of %s:%s", name, da)
	}
	return Package{Name: name, Version: f["Version"], Arch: da}, nil
}

// Versions lists the versions of name (as "pkg:arch") that apt can
// fetch, in the order `apt-cache madison` prints them, with apt's answer
// kept in cacheDir as Show keeps it.
func Versions(ctx context.Context, cacheDir, name string) ([]string, error) {
	out, err := aptCache(ctx, cacheDir, "madison", name)
	if err != nil {
		return nil, fmt.Errorf("listing the versions of %s: %w", name, err)
	}
	var vs []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "|")
		if len(f) < 3 {
			continue
		}
		if v := strings.TrimSpace(f[1]); v != "" && !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	return vs, nil
}

func run(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	return command.Output(ctx, dir, nil, name, args...)
}

// classify marks apt failures that come from the network.
func classify(err error) error {
	var ce *command.Error
	if errors.As(err, &ce) {
		for _, s := range []string{"Temporary failure resolving", "Could not connect", "Unable to connect",
			"Could not resolve", "Connection timed out", "Network is unreachable", "Failed to fetch"} {
			if strings.Contains(ce.Stderr, s) {
				return fmt.Errorf("%w: %w", ErrUnreachable, err)
			}
		}
	}
	return err
}

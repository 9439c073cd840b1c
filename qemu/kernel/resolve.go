package kernel

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/debpkg"
	"github.com/fsbench/fsbench/wire/arch"
)

// Version identifies one Debian kernel package exactly. It is what a result
// records: String() is apt's own pkg=version syntax, so the same kernel can be
// fetched again with `apt-get download` as long as the mirror keeps it.
type Version struct {
	Arch           arch.Arch // arch.X86_64, arch.ARM64 or arch.ARM
	Metapackage    string    // e.g. "linux-image-amd64"; empty when a kernel package was asked for
	Package        string    // e.g. "linux-image-6.1.0-57-amd64"
	PackageVersion string    // Debian version of Package, e.g. "6.1.192-3"
}

// String returns "package:arch=version", the argument `apt-get download`
// takes, e.g. "linux-image-6.1.0-57-amd64:amd64=6.1.192-3".
func (v Version) String() string {
	return v.aptName() + "=" + v.PackageVersion
}

// aptName always qualifies the package with its architecture: apt accepts
// that for the native one too, and it keeps a foreign kernel from being
// confused with a native package of the same name.
func (v Version) aptName() string {
	return v.Package + ":" + v.Arch.Debian()
}

// ErrForeignArchNotConfigured is returned by Resolve for an architecture that
// dpkg does not know on this host. Adding it changes the host's apt
// configuration, which this package never does on its own.
var ErrForeignArchNotConfigured = debpkg.ErrForeignArchNotConfigured

// Request names the kernel to boot: a Debian kernel package, a version of
// it, or both. The zero Request is the architecture's metapackage
// (linux-image-amd64, linux-image-arm64) at the version apt would install.
type Request struct {
	// Package is a metapackage (linux-image-amd64, linux-image-rt-amd64,
	// linux-image-cloud-amd64), followed to the kernel it depends on, or a
	// kernel package (linux-image-6.1.0-50-amd64).
	Package string
	// Version is the Debian version of Package; apt's candidate when
	// empty.
	Version string
}

// String is the request as ParseRequest reads it.
func (r Request) String() string {
	if r.Version == "" {
		return r.Package
	}
	return r.Package + "=" + r.Version
}

var (
	requestPackageRE = regexp.MustCompile(`^linux-image-[a-z0-9][a-z0-9.+-]*$`)
	requestVersionRE = regexp.MustCompile(`^[0-9][A-Za-z0-9.+~:-]*$`)
)

// ParseRequest reads "[PACKAGE][=VERSION]": "linux-image-rt-amd64",
// "linux-image-amd64=6.1.176-1", "=6.1.176-1" (the architecture's
// metapackage at that version), or "" for the default kernel.
func ParseRequest(s string) (Request, error) {
	pkg, ver, hasVer := strings.Cut(s, "=")
	r := Request{Package: pkg, Version: ver}
	switch {
	case pkg != "" && !requestPackageRE.MatchString(pkg):
		return Request{}, fmt.Errorf("kernel %q: want a Debian kernel package, linux-image-..., optionally with =VERSION "+
			"(no architecture suffix: the target's architecture is added)", s)
	case hasVer && !requestVersionRE.MatchString(ver):
		return Request{}, fmt.Errorf("kernel %q: %q is not a Debian version", s, ver)
	}
	return r, nil
}

// Resolve finds the concrete kernel package that Debian's metapackage for arch
// depends on, e.g. linux-image-amd64 -> linux-image-6.1.0-57-amd64 6.1.192-3.
// It runs `apt-get update` only when apt knows no metapackage at all (a fresh
// container without package lists), and logs that it does so. apt's answers
// are kept in cacheDir (none when empty) while apt's state is unchanged.
func Resolve(ctx context.Context, log logrus.FieldLogger, cacheDir string, a arch.Arch) (Version, error) {
	return ResolveRequest(ctx, log, cacheDir, a, Request{})
}

// ResolveRequest is Resolve for the kernel req names: a metapackage is
// followed to the kernel package it depends on at the version asked for; a
// kernel package is taken as it is.
func ResolveRequest(ctx context.Context, log logrus.FieldLogger, cacheDir string, a arch.Arch, req Request) (Version, error) {
	canon, err := arch.Parse(string(a))
	if err == nil && canon == arch.RISCV64 {
		err = fmt.Errorf("Debian 12 builds no riscv64 kernel (riscv64 became a release architecture in Debian 13); boot a riscv64 board with its build system's kernel")
	}
	if err != nil {
		return Version{}, fmt.Errorf("kernel: no Debian kernel for this architecture: %w", err)
	}
	da, flavour := canon.Debian(), canon.KernelFlavour()
	if err := debpkg.CheckArch(ctx, da); err != nil {
		return Version{}, fmt.Errorf("kernel: %w", err)
	}
	name := cmp.Or(req.Package, "linux-image-"+flavour)
	if !hasFlavour(name, canon) {
		return Version{}, fmt.Errorf("kernel: %s is not a kernel for %s (%s): its name does not end in -%s", name, canon, da, strings.Join(flavours(canon), " or -"))
	}
	aptName := name + ":" + da
	// Asking for the package first lets apt fetch its lists when it knows
	// no such package, and keeps a missing version from doing so.
	fields, err := debpkg.Show(ctx, log, cacheDir, aptName)
	if err != nil {
		return Version{}, fmt.Errorf("kernel: %w", err)
	}
	if req.Version != "" && fields["Version"] != req.Version {
		versions, err := debpkg.Versions(ctx, cacheDir, aptName)
		if err != nil {
			return Version{}, fmt.Errorf("kernel: %w", err)
		}
		if !slices.Contains(versions, req.Version) {
			return Version{}, fmt.Errorf("kernel: apt has no version %s of %s; it has %s", req.Version, aptName, strings.Join(versions, ", "))
		}
		if fields, err = debpkg.Show(ctx, log, cacheDir, aptName+"="+req.Version); err != nil {
			return Version{}, fmt.Errorf("kernel: %w", err)
		}
	}
	v := Version{Arch: canon}
	if kernelPackageRE.MatchString(name) {
		v.Package, v.PackageVersion = name, fields["Version"]
	} else {
		v.Metapackage = name
		v.Package, v.PackageVersion, err = kernelDep(fields["Depends"], canon)
		if err != nil {
			return Version{}, fmt.Errorf("kernel: %s: %w", aptName, err)
		}
	}
	if v.PackageVersion == "" {
		// The metapackages have always pinned "(= version)"; if that
		// ever changes, ask for the concrete package's candidate instead.
		f, err := debpkg.Show(ctx, log, cacheDir, v.aptName())
		if err != nil {
			return Version{}, fmt.Errorf("kernel: resolving %s: %w", v.Package, err)
		}
		v.PackageVersion = f["Version"]
	}
	if v.PackageVersion == "" {
		return Version{}, fmt.Errorf("kernel: no version for %s", v.Package)
	}
	return v, nil
}

// kernelPackageRE matches a kernel package, as opposed to a metapackage:
// its name starts with the kernel's version.
var kernelPackageRE = regexp.MustCompile(`^linux-image-[0-9]`)

// kernelDepRE matches the one dependency of linux-image-<arch> that is a real
// kernel, e.g. "linux-image-6.1.0-57-amd64 (= 6.1.192-3)".
var kernelDepRE = regexp.MustCompile(`^(linux-image-[0-9][^\s:(]*)(?::[a-z0-9]+)?(?:\s*\(=\s*([^)\s]+)\))?$`)

func kernelDep(depends string, a arch.Arch) (pkg, ver string, err error) {
	for _, alt := range strings.Split(depends, ",") {
		alt = strings.TrimSpace(alt)
		if strings.Contains(alt, "|") {
			continue
		}
		if m := kernelDepRE.FindStringSubmatch(alt); m != nil && hasFlavour(m[1], a) {
			return m[1], m[2], nil
		}
	}
	return "", "", fmt.Errorf("no linux-image-<version>-%s in Depends: %q", a.KernelFlavour(), depends)
}

// flavours are the suffixes of a's kernel packages: its Debian
// architecture (linux-image-rt-amd64) and its kernel flavour
// (linux-image-armmp, linux-image-armmp-lpae on armhf).
func flavours(a arch.Arch) []string {
	out := []string{a.Debian()}
	if a == arch.ARM {
		out = []string{"armmp-lpae", "armmp"}
	}
	return out
}

// hasFlavour tells whether a kernel package name is one for a.
func hasFlavour(name string, a arch.Arch) bool {
	for _, f := range flavours(a) {
		if strings.HasSuffix(name, "-"+f) || strings.HasSuffix(name, "-"+f+"-unsigned") {
			return true
		}
	}
	return false
}

// ErrUnreachable marks failures where apt could not reach the mirror, as
// opposed to a package or version that does not exist.
var ErrUnreachable = debpkg.ErrUnreachable

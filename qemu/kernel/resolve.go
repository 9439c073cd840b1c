package kernel

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/debian"
)

// Version identifies one Debian kernel package exactly. It is what a result
// records: String() is apt's own pkg=version syntax, so the same kernel can be
// fetched again with `apt-get download` as long as the mirror keeps it.
type Version struct {
	Arch           string // QEMU/fsbench architecture: "x86_64" or "arm64"
	DebArch        string // Debian architecture: "amd64" or "arm64"
	Metapackage    string // e.g. "linux-image-amd64"
	Package        string // e.g. "linux-image-6.1.0-57-amd64"
	PackageVersion string // Debian version of Package, e.g. "6.1.192-3"
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
	return v.Package + ":" + v.DebArch
}

// ErrForeignArchNotConfigured is returned by Resolve for an architecture that
// dpkg does not know on this host. Adding it changes the host's apt
// configuration, which this package never does on its own.
var ErrForeignArchNotConfigured = debian.ErrForeignArchNotConfigured

var debArch = map[string]string{
	"x86_64":  "amd64",
	"amd64":   "amd64",
	"arm64":   "arm64",
	"aarch64": "arm64",
}

// Resolve finds the concrete kernel package that Debian's metapackage for arch
// depends on, e.g. linux-image-amd64 -> linux-image-6.1.0-57-amd64 6.1.192-3.
// It runs `apt-get update` only when apt knows no metapackage at all (a fresh
// container without package lists), and logs that it does so. apt's answers
// are kept in cacheDir (none when empty) while apt's state is unchanged.
func Resolve(ctx context.Context, log logrus.FieldLogger, cacheDir, arch string) (Version, error) {
	da, ok := debArch[arch]
	if !ok {
		return Version{}, fmt.Errorf("kernel: no Debian kernel for architecture %q (want x86_64 or arm64)", arch)
	}
	canon := "x86_64"
	if da == "arm64" {
		canon = "arm64"
	}
	if err := debian.CheckArch(ctx, da); err != nil {
		return Version{}, fmt.Errorf("kernel: %w", err)
	}
	v := Version{Arch: canon, DebArch: da, Metapackage: "linux-image-" + da}
	metaName := v.Metapackage + ":" + da

	fields, err := debian.Show(ctx, log, cacheDir, metaName)
	if err != nil {
		return Version{}, fmt.Errorf("kernel: %w", err)
	}
	v.Package, v.PackageVersion, err = kernelDep(fields["Depends"], da)
	if err != nil {
		return Version{}, fmt.Errorf("kernel: %s: %w", metaName, err)
	}
	if v.PackageVersion == "" {
		// The metapackage has always pinned "(= version)"; if that ever
		// changes, ask for the concrete package's candidate instead.
		f, err := debian.Show(ctx, log, cacheDir, v.aptName())
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

// kernelDepRE matches the one dependency of linux-image-<arch> that is a real
// kernel, e.g. "linux-image-6.1.0-57-amd64 (= 6.1.192-3)".
var kernelDepRE = regexp.MustCompile(`^(linux-image-[0-9][^\s:(]*)(?::[a-z0-9]+)?(?:\s*\(=\s*([^)\s]+)\))?$`)

func kernelDep(depends, da string) (pkg, ver string, err error) {
	for _, alt := range strings.Split(depends, ",") {
		alt = strings.TrimSpace(alt)
		if strings.Contains(alt, "|") {
			continue
		}
		if m := kernelDepRE.FindStringSubmatch(alt); m != nil && strings.HasSuffix(m[1], "-"+da) {
			return m[1], m[2], nil
		}
	}
	return "", "", fmt.Errorf("no linux-image-<version>-%s in Depends: %q", da, depends)
}

// ErrUnreachable marks failures where apt could not reach the mirror, as
// opposed to a package or version that does not exist.
var ErrUnreachable = debian.ErrUnreachable

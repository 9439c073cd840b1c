package userland

import (
	"strings"
	"unicode"
)

// dependsNames reads a Depends or Pre-Depends field ("a (>= 1), b | c,
// d:any [amd64]") into package names: of each alternative group the first,
// with version constraints, architecture qualifiers and restrictions
// dropped. The shared libraries a package links come from its direct
// dependencies (dpkg-shlibdeps writes them there), and the first
// alternative is the one apt installs when it has a choice.
func dependsNames(field string) []string {
	var names []string
	for _, group := range strings.Split(field, ",") {
		first, _, _ := strings.Cut(group, "|")
		first = strings.TrimSpace(first)
		end := strings.IndexFunc(first, func(r rune) bool { return unicode.IsSpace(r) || r == '(' || r == '[' || r == '<' })
		if end >= 0 {
			first = first[:end]
		}
		first, _, _ = strings.Cut(first, ":")
		if first != "" {
			names = append(names, first)
		}
	}
	return names
}

// sonamePackage is the package name Debian policy (section 8.1) gives
// the shared library soname: the library name and its version, with a
// hyphen between them when the name ends in a digit, lower case,
// underscores as hyphens. libext2fs.so.2 -> libext2fs2, liblzo2.so.2 ->
// liblzo2-2, libcom_err.so.2 -> libcom-err2. The lookup tries that
// package first, and the others when a package does not follow the policy
// (libz.so.1 is in zlib1g, libe2p.so.2 in libext2fs2).
func sonamePackage(soname string) string {
	name, version, ok := strings.Cut(soname, ".so")
	if !ok {
		return ""
	}
	version = strings.TrimPrefix(version, ".")
	if name == "" || version == "" {
		return ""
	}
	if c := name[len(name)-1]; c >= '0' && c <= '9' {
		name += "-"
	}
	return strings.ToLower(strings.ReplaceAll(name+version, "_", "-"))
}

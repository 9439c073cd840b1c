// Package hclfmt rewrites fsbench spec files (*.fsb.hcl) into their
// canonical layout and reports the difference; it is the engine behind
// `fsbench fmt`.
//
// The package offers three pieces the CLI combines:
//
//   - [Format] turns source into canonical HCL, refusing files that do not
//     parse.
//   - [Diff] renders a unified diff (the `fmt -d` output) without calling
//     external programs.
//   - [Files] expands the command-line arguments into the files to visit.
//
// Two rules bound everything here:
//
//   - Never change the meaning of a file. Only whitespace between tokens,
//     blank lines and line endings are touched; heredoc bodies and string
//     literals are copied byte for byte. Format re-lexes its own output and
//     refuses to return it if the significant tokens differ from the input.
//     The single deliberate exception is CRLF, which becomes LF everywhere,
//     heredoc bodies included, because a CRLF there is an editor artifact
//     rather than content.
//   - Never write files. Functions return bytes and lists; deciding whether
//     to print, diff or overwrite belongs to the CLI.
package hclfmt

// Package imagegen turns a resolved plan into the files a board is flashed
// with: each filesystem built by its real mkfs tool into a file of its
// own, placed with the partition table into a sparse disk image, plus the
// image's block map, manifest, kernel command line, bootloader file and
// fstab.
//
// It never runs a command through a shell, never writes outside the
// output directory it is given, and never leaves a partial image at a
// final path: every output is written under a temporary name and renamed
// into place once complete. Nothing it writes depends on the clock or a
// random source: ids come from the plan and timestamps from the build's
// SOURCE_DATE_EPOCH.
package imagegen

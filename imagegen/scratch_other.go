//go:build !linux

package imagegen

import "io/fs"

// defaultScratch is empty where no tmpfs is known: every image is built
// beside the outputs.
const defaultScratch = ""

func memoryRoom(string) int64 { return 0 }

func tmpfsFree(string) int64 { return 0 }

func processAlive(int) bool { return true }

func ownedByMe(fs.DirEntry) bool { return false }

// Package parttabletest makes the partition tables that the tests of
// parttable and of its readers (the initramfs init) look for, with sgdisk,
// a tool that shares no code with the parser.
package parttabletest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// The GUIDs of the GPT that GPT writes.
const (
	DiskGUID  = "6e0a2b8c-7b1f-4e7e-9a53-0f1d6c2b9a11"
	BootGUID  = "0b6a9f8e-1c2d-4e3f-8a9b-0c1d2e3f4a5b"
	RootGUID  = "C0FFEE00-1234-4abc-9def-00112233AABB" // upper case on purpose
	Slot4GUID = "11111111-2222-4333-8444-555555555555"
)

// image is made once: sgdisk sleeps a second after writing, waiting for a
// kernel re-read that a file never gets. Callers get copies.
var image struct {
	once sync.Once
	data []byte
	err  error
}

// GPT writes into dir a 16 MiB disk image with a GPT: partition 1 "boot"
// (1 MiB, EFI system), 2 "root fs é" (8 MiB), slot 3 empty and 4 "data"
// (the rest), and returns its path. It needs sgdisk on PATH.
func GPT(dir string) (string, error) {
	image.once.Do(func() { image.data, image.err = makeGPT() })
	if image.err != nil {
		return "", image.err
	}
	img := filepath.Join(dir, "disk.img")
	return img, os.WriteFile(img, image.data, 0o644)
}

func makeGPT() ([]byte, error) {
	dir, err := os.MkdirTemp("", "parttable-gpt-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	img := filepath.Join(dir, "disk.img")
	if err := os.WriteFile(img, nil, 0o644); err != nil {
		return nil, err
	}
	if err := os.Truncate(img, 16<<20); err != nil {
		return nil, err
	}
	// Slot 3 stays empty: the kernel numbers GPT partitions by slot, so
	// the fourth is vda4 whatever comes before it.
	out, err := exec.Command("sgdisk", "-o", "-U", DiskGUID,
		"-n", "1:2048:+1M", "-t", "1:ef00", "-c", "1:boot", "-u", "1:"+BootGUID,
		"-n", "2:0:+8M", "-t", "2:8300", "-c", "2:root fs é", "-u", "2:"+RootGUID,
		"-n", "4:0:0", "-t", "4:8300", "-c", "4:data", "-u", "4:"+Slot4GUID,
		img).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("sgdisk: %v\n%s", err, out)
	}
	return os.ReadFile(img)
}

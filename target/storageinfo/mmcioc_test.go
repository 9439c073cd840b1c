package storageinfo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

// The layout the kernel expects of struct mmc_ioc_cmd; the compiler checks
// size and data_ptr on every GOARCH (mmcioc.go), this checks the rest.
func TestMMCIocCmdLayout(t *testing.T) {
	var c mmcIocCmd
	for name, c := range map[string][2]uintptr{
		"write_flag": {unsafe.Offsetof(c.WriteFlag), 0}, "opcode": {unsafe.Offsetof(c.Opcode), 8},
		"arg": {unsafe.Offsetof(c.Arg), 12}, "response": {unsafe.Offsetof(c.Response), 16},
		"flags": {unsafe.Offsetof(c.Flags), 32}, "blksz": {unsafe.Offsetof(c.Blksz), 36},
		"blocks": {unsafe.Offsetof(c.Blocks), 40}, "cmd_timeout_ms": {unsafe.Offsetof(c.CmdTimeoutMs), 56},
		"data_ptr": {unsafe.Offsetof(c.DataPtr), 64}, "sizeof": {unsafe.Sizeof(c), 72},
	} {
		if c[0] != c[1] {
			t.Errorf("%s at %d, want %d", name, c[0], c[1])
		}
	}
	if mmcIocCmdNr != 0xc048b300 { // _IOWR(179, 0, 72)
		t.Errorf("MMC_IOC_CMD = %#x", mmcIocCmdNr)
	}
	buf := make([]byte, ExtCSDSize)
	cmd := extCSDCommand(buf)
	if cmd.Opcode != 8 || cmd.Arg != 0 || cmd.Flags != 0xb5 || cmd.Blksz != 512 || cmd.Blocks != 1 || cmd.WriteFlag != 0 {
		t.Errorf("SEND_EXT_CSD request %+v, want mmc-utils': opcode 8, flags 0xb5, one 512-byte block", cmd)
	}
	if uintptr(cmd.DataPtr) != uintptr(unsafe.Pointer(&buf[0])) {
		t.Error("data_ptr does not point at the buffer")
	}
}

// A node that is not an MMC device refuses MMC_IOC_CMD; the reason says so.
func TestIoctlOnPlainFile(t *testing.T) {
	node := filepath.Join(t.TempDir(), "mmcblk0")
	if err := os.WriteFile(node, make([]byte, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ioctlExtCSD(node)
	if err == nil {
		t.Fatal("MMC_IOC_CMD succeeded on a regular file")
	}
	if why := ioctlReason(node, err); !strings.Contains(why, "is not an MMC device") {
		t.Errorf("reason %q", why)
	}
	_, err = ioctlExtCSD(node + "-gone")
	if why := ioctlReason(node+"-gone", err); !strings.HasSuffix(why, "does not exist") {
		t.Errorf("reason %q", why)
	}
}

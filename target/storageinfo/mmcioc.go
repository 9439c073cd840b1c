package storageinfo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mmcIocCmd is struct mmc_ioc_cmd (include/uapi/linux/mmc/ioctl.h), the
// argument of MMC_IOC_CMD. The kernel pads it by hand so that data_ptr, a
// __u64, sits at offset 64 and the struct is 72 bytes on every
// architecture: 32-bit ARM aligns a __u64 to 8 and i386 to 4, and without
// the pad the two would disagree. The checks below hold it to that layout
// at compile time on every architecture the runner is built for.
type mmcIocCmd struct {
	WriteFlag      int32
	IsAcmd         int32
	Opcode         uint32
	Arg            uint32
	Response       [4]uint32
	Flags          uint32
	Blksz          uint32
	Blocks         uint32
	PostsleepMinUs uint32
	PostsleepMaxUs uint32
	DataTimeoutNs  uint32
	CmdTimeoutMs   uint32
	_              uint32 // __pad
	DataPtr        uint64 // a user pointer, widened to 64 bits
}

const (
	mmcIocCmdSize  = 72
	mmcDataPtrOff  = 64
	mmcBlockMajor  = 179 // MMC_BLOCK_MAJOR, the ioctl type
	mmcSendExtCSD  = 8   // MMC_SEND_EXT_CSD, opcode 8
	mmcRspPresent  = 1 << 0
	mmcRspCRC      = 1 << 2
	mmcRspOpcode   = 1 << 4
	mmcCmdADTC     = 1 << 5 // addressed data transfer command
	mmcRspSPIS1    = 1 << 7
	mmcRspR1       = mmcRspPresent | mmcRspCRC | mmcRspOpcode
	mmcRspSPIR1    = mmcRspSPIS1
	extCSDCmdFlags = mmcRspSPIR1 | mmcRspR1 | mmcCmdADTC
)

// The layout, checked by the compiler: each array length is negative, and
// the build fails, unless the size and the offset are exactly the kernel's.
var (
	_ [mmcIocCmdSize - unsafe.Sizeof(mmcIocCmd{})]byte
	_ [unsafe.Sizeof(mmcIocCmd{}) - mmcIocCmdSize]byte
	_ [mmcDataPtrOff - unsafe.Offsetof(mmcIocCmd{}.DataPtr)]byte
	_ [unsafe.Offsetof(mmcIocCmd{}.DataPtr) - mmcDataPtrOff]byte
)

// mmcIocCmdNr is MMC_IOC_CMD, _IOWR(MMC_BLOCK_MAJOR, 0, struct
// mmc_ioc_cmd), in the generic ioctl encoding that amd64, arm64, arm and
// riscv64 share: direction in bits 31:30 (read|write = 3), size in 29:16,
// type in 15:8, number in 7:0.
const mmcIocCmdNr uintptr = 3<<30 | mmcIocCmdSize<<16 | mmcBlockMajor<<8 | 0

// extCSDCommand is the SEND_EXT_CSD request mmc-utils sends: opcode 8,
// argument 0, one 512-byte block read into buf.
func extCSDCommand(buf []byte) mmcIocCmd {
	return mmcIocCmd{
		Opcode: mmcSendExtCSD, Flags: extCSDCmdFlags,
		Blksz: ExtCSDSize, Blocks: 1,
		DataPtr: uint64(uintptr(unsafe.Pointer(&buf[0]))),
	}
}

// ioctlExtCSD reads the EXT_CSD of the whole device at node.
func ioctlExtCSD(node string) ([]byte, error) {
	fd, err := unix.Open(node, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	buf := make([]byte, ExtCSDSize)
	cmd := extCSDCommand(buf)
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), mmcIocCmdNr, uintptr(unsafe.Pointer(&cmd)))
	runtime.KeepAlive(buf) // the kernel wrote into it through a bare address
	if errno != 0 {
		return nil, errno
	}
	return buf, nil
}

// ioctlReason is why MMC_IOC_CMD on node gave no EXT_CSD, in words.
func ioctlReason(node string, err error) string {
	switch {
	case errors.Is(err, unix.ENOENT):
		return fmt.Sprintf("%s does not exist", node)
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return fmt.Sprintf("no permission for MMC_IOC_CMD on %s (it needs CAP_SYS_RAWIO and the whole device)", node)
	case errors.Is(err, unix.ENOTTY), errors.Is(err, unix.EINVAL), errors.Is(err, unix.EOPNOTSUPP):
		return fmt.Sprintf("%s is not an MMC device (MMC_IOC_CMD: %v)", node, err)
	}
	return fmt.Sprintf("MMC_IOC_CMD on %s: %v", node, err)
}

// debugfsExtCSD reads the EXT_CSD the kernel publishes in debugfs for the
// card whose sysfs directory is cardDir (its name, mmcN:RCA, names the
// debugfs directory too).
func debugfsExtCSD(sysRoot, cardDir string) ([]byte, string, error) {
	card := filepath.Base(cardDir)
	host, _, ok := strings.Cut(card, ":")
	if !ok {
		return nil, "", fmt.Errorf("the card's sysfs directory %q is not named mmcN:RCA", card)
	}
	path := filepath.Join(sysRoot, "kernel", "debug", host, card, "ext_csd")
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, path, fmt.Errorf("no %s (debugfs not mounted, or no CONFIG_DEBUG_FS)", path)
	case errors.Is(err, os.ErrPermission):
		return nil, path, fmt.Errorf("no permission to read %s", path)
	case err != nil:
		return nil, path, err
	}
	raw, _, err := ParseExtCSDText(string(b))
	if err != nil {
		return nil, path, fmt.Errorf("%s: %w", path, err)
	}
	return raw, path, nil
}

// readExtCSD reads an eMMC's EXT_CSD: through MMC_IOC_CMD on the whole
// device node, the register as the device holds it now, or else the copy
// in debugfs. from says which, or why neither.
func readExtCSD(sysRoot, node, cardDir string) (raw []byte, from Fact) {
	raw, err := ioctlExtCSD(node)
	if err == nil {
		return raw, text("MMC_IOC_CMD SEND_EXT_CSD on "+node, "ioctl")
	}
	why := ioctlReason(node, err)
	raw, path, derr := debugfsExtCSD(sysRoot, cardDir)
	if derr == nil {
		return raw, text(path+" (MMC_IOC_CMD: "+why+")", "debugfs")
	}
	return nil, missing("%s; debugfs: %v", why, derr)
}

package runplan

import (
	"fmt"
	"strings"
)

// What the host puts in the root filesystem for each case of an update
// test, and the runner reads there: the old image, which the runner
// writes into slot A before the update, the new one, the update of the
// new one (a RAUC bundle, or an SWUpdate image), the certificate it is
// signed with (RAUC's keyring, SWUpdate's -k), the factory environment,
// and the script that runs the updater.
const (
	UpdateDir        = "/var/lib/fsbench/update"
	UpdateOldImage   = "old.img"
	UpdateNewImage   = "new.img"
	UpdateBundle     = "update.raucb" // updater = "rauc"
	UpdateSWU        = "update.swu"   // updater = "swupdate"
	UpdateCert       = "cert.pem"
	UpdateEnvImage   = "env.img"        // the factory environment, its copies from env_offset
	UpdateScript     = "update.sh"      // runs the updater
	UpdateCompatible = "fsbench-update" // the bundle's and the system's compatible (RAUC), the hardware (SWUpdate)
	UpdateHWRevision = "1.0"            // the hardware revision an SWUpdate image is for
	// UpdateSlotRelease is the file of a slot's filesystem image (when
	// slot A's partition has a filesystem) that tells the old image from
	// the new one: "fsbench update TEST/CASE version N".
	UpdateSlotRelease = "/etc/fsbench-slot"
)

// UpdateSlotNode is the device node through which the update writes a
// slot while it is recorded ("slot_a", "slot_b", "env"): an SWUpdate image
// names its device, so the host writes this path into it.
func UpdateSlotNode(field string) string { return "/dev/fsbench/fsbench-upd-" + field }

// UpdateCaseDir is the directory of a case's files: one path element
// made of the test's and the case's names.
func UpdateCaseDir(test, caseName string) string {
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == 0 || r == ' ' {
			return '_'
		}
		return r
	}, test+"-"+caseName)
	return UpdateDir + "/" + name
}

// UpdateFactoryEnv is the environment a board leaves the factory with,
// and U-Boot's built-in default: slot B empty, so BOOT_ORDER names slot A
// alone and B has no attempts; the boot script is RAUC's U-Boot logic
// (the first slot of BOOT_ORDER with attempts left boots, one attempt
// spent each boot). It spans a few sectors, as a board's does, so that
// a write that adds a variable changes more than the first sector.
func UpdateFactoryEnv() map[string]string {
	return map[string]string{
		"BOOT_ORDER":  "A",
		"BOOT_A_LEFT": "3",
		"bootdelay":   "2",
		"baudrate":    "115200",
		"boot_linux":  "load mmc 0:${rauc_part} ${kernel_addr_r} /boot/Image; load mmc 0:${rauc_part} ${fdt_addr_r} /boot/board.dtb; booti ${kernel_addr_r} - ${fdt_addr_r}",
		"bootcmd": "test -n \"${BOOT_ORDER}\" || setenv BOOT_ORDER \"A B\"; test -n \"${BOOT_A_LEFT}\" || setenv BOOT_A_LEFT 3; " +
			"test -n \"${BOOT_B_LEFT}\" || setenv BOOT_B_LEFT 3; setenv bootargs; " +
			"for BOOT_SLOT in \"${BOOT_ORDER}\"; do if test \"x${bootargs}\" != \"x\"; then echo skip ${BOOT_SLOT}; " +
			"elif test \"x${BOOT_SLOT}\" = \"xA\"; then if test ${BOOT_A_LEFT} -gt 0; then setexpr BOOT_A_LEFT ${BOOT_A_LEFT} - 1; " +
			"setenv rauc_part 2; setenv bootargs \"root=PARTLABEL=slot_a rauc.slot=A\"; fi; " +
			"elif test \"x${BOOT_SLOT}\" = \"xB\"; then if test ${BOOT_B_LEFT} -gt 0; then setexpr BOOT_B_LEFT ${BOOT_B_LEFT} - 1; " +
			"setenv rauc_part 3; setenv bootargs \"root=PARTLABEL=slot_b rauc.slot=B\"; fi; fi; done; " +
			"if test -n \"${bootargs}\"; then saveenv; run boot_linux; else echo no slot has attempts left; reset; fi",
	}
}

// UpdateEnvFiles are the files of the environment's filesystem that hold
// its copies (env_file, and env_file_redund with env_redundant), none
// when the copies are raw. Each is a plain path: it goes into
// fw_env.config and into U-Boot's boot script as one word.
func UpdateEnvFiles(p Params) ([]string, error) {
	file, err := p.String("env_file")
	if err != nil || file == "" {
		return nil, err
	}
	files := []string{file}
	redundant, err := p.Bool("env_redundant")
	if err != nil {
		return nil, err
	}
	if redundant {
		redund, err := p.String("env_file_redund")
		if err != nil {
			return nil, err
		}
		files = append(files, redund)
	}
	for _, f := range files {
		if !PlainEnvPath(f) {
			return nil, fmt.Errorf("environment file %q: not a plain path", f)
		}
	}
	return files, nil
}

// PlainEnvPath tells whether v is a relative path of plain names:
// letters, digits, '.', '_' and '-', separated by '/', without "." or
// ".." elements.
func PlainEnvPath(v string) bool {
	if v == "" || strings.HasPrefix(v, "/") || len(v) > 255 {
		return false
	}
	for _, part := range strings.Split(v, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
		for _, r := range part {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
				return false
			}
		}
	}
	return true
}

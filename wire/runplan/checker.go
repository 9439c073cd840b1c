package runplan

// DefaultChecker is the checker argv prefix for a partition of type fs
// whose plan gives none (Partition.Check empty), or nil when fsbench knows
// none. The runner runs it; the host reads it too, to know which programs
// an image built without a build system's root filesystem must carry.
func DefaultChecker(fs string) []string {
	switch fs {
	case "ext2", "ext3", "ext4":
		return []string{"e2fsck", "-fn"}
	case "xfs":
		return []string{"xfs_repair", "-n"}
	case "btrfs":
		return []string{"btrfs", "check", "--readonly"}
	case "f2fs":
		return []string{"fsck.f2fs", "--dry-run"}
	case "vfat":
		return []string{"fsck.vfat", "-n"}
	}
	return nil
}

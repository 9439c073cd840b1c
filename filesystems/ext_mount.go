package filesystems

// Mount options of the ext family, from ext4_param_specs and ext4_mount_opts
// in fs/ext4/super.c (Linux 6.x) and Documentation/admin-guide/ext4.rst.
// Since Linux 4.3 ext3, and on most configurations ext2, are mounted by the
// ext4 driver, which refuses MOPT_NO_EXT2 options for ext2 and
// MOPT_EXT4_ONLY ones for ext2 and ext3. The ext2 list is also limited to
// what the stand-alone fs/ext2 driver accepts, so that a spec mounts
// whichever driver the board's kernel has.

const (
	extRemovedACL = "Linux 6.1 removed noacl and nouser_xattr from the ext4 driver, " +
		"which serves ext2 and ext3 too; the mount fails. Leave ACLs and user xattrs on, or build the kernel without them"
	extRemovedOpt = "the ext4 driver accepts it only to log \"Ignoring removed option\"; remove it"
)

func extMountOptions(name string) []MountOption {
	ignored := func(n string) MountOption { return status(flag(n, "removed"), Ignored, extRemovedOpt) }
	common := []MountOption{
		grouped(flag("bsddf", "df reports the BSD way (default)"), "df", "bsd"),
		grouped(flag("minixdf", "df reports the Minix way"), "df", "minix"),
		grouped(flag("grpid", "new files take the directory's group"), "grpid", "on"),
		grouped(flag("bsdgroups", "same as grpid"), "grpid", "on"),
		grouped(flag("nogrpid", "new files take the creator's group (default)"), "grpid", "off"),
		grouped(flag("sysvgroups", "same as nogrpid"), "grpid", "off"),
		uintOpt("resgid", 0, 0, "group that may use the reserved blocks"),
		uintOpt("resuid", 0, 0, "user that may use the reserved blocks"),
		uintOpt("sb", 0, 0, "use the superblock at this block"),
		enumOpt("errors", []string{"continue", "remount-ro", "panic"}, "behaviour on errors"),
		flag("nouid32", "16-bit uids and gids"),
		flag("debug", "extra debugging messages"),
		flag("user_xattr", "user extended attributes (default)"),
		flag("acl", "POSIX ACLs (default)"),
		status(flag("nouser_xattr", "no user xattrs"), Removed, extRemovedACL),
		status(flag("noacl", "no POSIX ACLs"), Removed, extRemovedACL),
		ignored("oldalloc"), ignored("orlov"), ignored("nobh"),
		ignored("reservation"), ignored("noreservation"),
		flag("grpquota", "group quota"), flag("quota", "user quota"),
		flag("noquota", "no quota"), flag("usrquota", "user quota"),
	}
	if name == "ext2" {
		return append(common,
			flag("dax", "direct access, no page cache"),
			status(flag("xip", "execute in place"), Removed, "Linux 4.0 replaced xip with dax; use dax"))
	}
	opts := append(common,
		ignored("bh"), ignored("mblk_io_submit"), ignored("nomblk_io_submit"),
		ignored("prefetch_block_bitmaps"), ignored("nocheck"),
		status(strOpt("check", "removed ext2/3 option"), Ignored, extRemovedOpt),
		status(uintOpt("journal", 0, 0, "removed ext3 option"), Ignored, extRemovedOpt),
		status(flag("i_version", "inode versions"), Ignored,
			"the ext4 driver ignores i_version (it always keeps inode versions); use the VFS flag iversion if you must"),
		grouped(flag("norecovery", "do not replay the journal"), "noload", "on"),
		grouped(flag("noload", "do not replay the journal"), "noload", "on"),
		uintOpt("commit", 0, 2147483, "seconds between journal commits (default 5; 0 means the default)"),
		uintOpt("min_batch_time", 0, 0, "microseconds to wait for more operations in a sync commit"),
		uintOpt("max_batch_time", 0, 0, "longest wait in microseconds (default 15000)"),
		uintOpt("journal_dev", 0, 0, "external journal device number"),
		strOpt("journal_path", "external journal device path"),
		uintOpt("journal_ioprio", 0, 7, "I/O priority of journal commits, 0 (highest) to 7"),
		flag("abort", "simulate an abort (debugging)"),
		enumOpt("data", []string{"journal", "ordered", "writeback"}, "data journaling mode (default ordered)"),
		enumOpt("data_err", []string{"abort", "ignore"}, "what a data write error does in ordered mode"),
		MountOption{Name: "usrjquota", Value: StringValue, emptyOK: true, Doc: "journaled user quota file"},
		MountOption{Name: "grpjquota", Value: StringValue, emptyOK: true, Doc: "journaled group quota file"},
		enumOpt("jqfmt", []string{"vfsold", "vfsv0", "vfsv1"}, "journaled quota format"),
		flag("prjquota", "project quota"),
		MountOption{Name: "barrier", Value: UintValue, ValueOptional: true, Group: "barrier", Sets: "on",
			Doc: "cache flushes on journal commits (default); barrier=0 switches them off"},
		grouped(flag("nobarrier", "no cache flushes on journal commits"), "barrier", "off"),
		uintOpt("stripe", 0, 0, "blocks mballoc aligns allocations to"),
		grouped(flag("warn_on_error", "WARN on errors"), "warn_on_error", "on"),
		grouped(flag("nowarn_on_error", "do not WARN on errors"), "warn_on_error", "off"),
		grouped(flag("block_validity", "track metadata blocks (default)"), "block_validity", "on"),
		grouped(flag("noblock_validity", "do not track metadata blocks"), "block_validity", "off"),
		MountOption{Name: "inode_readahead_blks", Value: UintValue, Min: 0, Max: 1 << 30, PowerOfTwo: true,
			Doc: "inode table blocks to read ahead: 0 or a power of two (default 32)"},
		MountOption{Name: "auto_da_alloc", Value: UintValue, ValueOptional: true, Group: "auto_da_alloc", Sets: "on",
			Doc: "flush delayed allocations on replace-by-rename (default)"},
		grouped(flag("noauto_da_alloc", "do not flush on replace-by-rename"), "auto_da_alloc", "off"),
		grouped(flag("discard", "issue discard/TRIM when blocks are freed"), "discard", "on"),
		grouped(flag("nodiscard", "no discard (default)"), "discard", "off"),
		MountOption{Name: "init_itable", Value: UintValue, ValueOptional: true, Group: "init_itable", Sets: "on",
			Doc: "zero inode tables in the background, waiting n times the last zeroing time"},
		grouped(flag("noinit_itable", "do not zero inode tables in the background"), "init_itable", "off"),
		uintOpt("max_dir_size_kb", 0, 0, "largest directory in KiB"),
		MountOption{Name: "test_dummy_encryption", Value: EnumValue, Enum: []string{"v1", "v2"}, ValueOptional: true,
			Doc: "fake encryption context for tests"},
		flag("inlinecrypt", "use blk-crypto inline encryption"),
		grouped(flag("nombcache", "no mbcache for xattr blocks"), "mbcache", "off"),
		grouped(flag("no_mbcache", "same as nombcache"), "mbcache", "off"),
		flag("no_prefetch_block_bitmaps", "do not prefetch block bitmaps"),
		MountOption{Name: "mb_optimize_scan", Value: IntValue, Min: 0, Max: 1, Doc: "mballoc scan optimisation, 0 or 1"},
	)
	ext4Only := []MountOption{
		grouped(flag("journal_checksum", "checksum journal transactions"), "journal_checksum", "on"),
		grouped(flag("nojournal_checksum", "no journal checksums"), "journal_checksum", "off"),
		flag("journal_async_commit", "write the commit block without waiting (implies journal_checksum)"),
		grouped(flag("delalloc", "delayed allocation (default)"), "delalloc", "on"),
		grouped(flag("nodelalloc", "no delayed allocation"), "delalloc", "off"),
		grouped(flag("dioread_nolock", "direct reads without the inode lock"), "dioread", "on"),
		grouped(flag("dioread_lock", "direct reads take the inode lock"), "dioread", "off"),
		grouped(flag("nodioread_nolock", "same as dioread_lock"), "dioread", "off"),
	}
	if name == "ext3" {
		return append(opts, flag("dax", "direct access, no page cache"))
	}
	return append(append(opts, ext4Only...),
		MountOption{Name: "dax", Value: EnumValue, Enum: []string{"always", "inode", "never"}, ValueOptional: true,
			Doc: "direct access, no page cache; bare dax means dax=always"})
}

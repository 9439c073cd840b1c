package filesystems

import (
	"fmt"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/internal/units"
)

// TestExtRulesMatchMke2fs runs mke2fs on the command line Resolve derives
// for each combination: Resolve must report a problem exactly when mke2fs
// refuses, so that the rules neither let a failing build through nor
// refuse one that works.
func TestExtRulesMatchMke2fs(t *testing.T) {
	testenv.Tools(t, "mke2fs")
	cases := []struct {
		name     string
		typ      string
		features []string
		tuning   map[string]any
		size     int64
		refused  bool
	}{
		{"^extent", "ext4", []string{"^extent"}, nil, 0, true},
		{"^extents", "ext4", []string{"^extents"}, nil, 0, true},
		{"^extent ^64bit", "ext4", []string{"^extent", "^64bit"}, nil, 0, false},
		{"^extent on ext3", "ext3", []string{"^extent"}, nil, 0, false},
		{"bigalloc", "ext4", []string{"bigalloc"}, nil, 0, false},
		{"bigalloc ^extent", "ext4", []string{"bigalloc", "^extent", "^64bit"}, nil, 0, true},
		{"metadata_csum_seed", "ext4", []string{"metadata_csum_seed"}, nil, 0, false},
		{"metadata_csum_seed ^metadata_csum", "ext4", []string{"metadata_csum_seed", "^metadata_csum"}, nil, 0, true},
		{"^metadata_csum", "ext4", []string{"^metadata_csum"}, nil, 0, false},
		{"orphan_file", "ext4", []string{"orphan_file"}, nil, 0, false},
		{"orphan_file ^has_journal", "ext4", []string{"orphan_file", "^has_journal"}, nil, 0, true},
		{"^sparse_super", "ext4", []string{"^sparse_super"}, nil, 0, true},
		{"^sparse_super ^resize_inode", "ext4", []string{"^sparse_super", "^resize_inode"}, nil, 0, false},
		{"ext2 ^sparse_super", "ext2", []string{"^sparse_super"}, nil, 0, true},
		{"ext2 ^sparse_super ^resize_inode", "ext2", []string{"^sparse_super", "^resize_inode"}, nil, 0, false},
		{"meta_bg", "ext4", []string{"meta_bg"}, nil, 0, true},
		{"meta_bg ^resize_inode", "ext4", []string{"meta_bg", "^resize_inode"}, nil, 0, false},
		{"inline_data", "ext4", []string{"inline_data"}, nil, 0, false},
		{"inline_data 128", "ext4", []string{"inline_data"}, map[string]any{"inode_size": int64(128)}, 0, true},
		{"project 128", "ext4", []string{"quota", "project"}, map[string]any{"inode_size": int64(128)}, 0, true},
		{"quota 128", "ext4", []string{"quota"}, map[string]any{"inode_size": int64(128)}, 0, false},
		{"inode 1KiB ratio 1KiB", "ext4", nil, map[string]any{"inode_size": int64(1024), "inode_ratio": int64(1024)}, 0, true},
		{"inode 2KiB ratio 1KiB", "ext4", nil, map[string]any{"inode_size": int64(2048), "inode_ratio": int64(1024)}, 0, true},
		{"inode 1KiB ratio 2KiB", "ext4", nil, map[string]any{"inode_size": int64(1024), "inode_ratio": int64(2048)}, 0, false},
		{"inode 512 ratio 1KiB", "ext4", nil, map[string]any{"inode_size": int64(512), "inode_ratio": int64(1024)}, 0, false},
		{"inode 4KiB small", "ext4", nil, map[string]any{"inode_size": int64(4096)}, 0, true},
		{"inode 4KiB ratio 8KiB", "ext4", nil, map[string]any{"inode_size": int64(4096), "inode_ratio": int64(8192)}, 0, false},
		{"inode 4KiB on 1GiB", "ext4", nil, map[string]any{"inode_size": int64(4096)}, units.GiB, false},
		{"inode 2KiB small", "ext4", nil, map[string]any{"inode_size": int64(2048)}, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Spec{Type: c.typ, UUID: testUUID, Size: 32 * units.MiB, Features: c.features, Tuning: c.tuning}
			if c.size > 0 {
				s.Size = c.size
			}
			r, probs := Resolve(s)
			argv := mkfsArgv(r, sparse(t, s.Size))
			err := tool(t, argv...)
			if (err != nil) != c.refused {
				t.Fatalf("%v: mke2fs error %v, want refused=%t; the rule's evidence changed", argv, err, c.refused)
			}
			if (len(probs) > 0) != c.refused {
				t.Errorf("mke2fs refused=%t (%v), Resolve's problems %+v", c.refused, err, probs)
			}
		})
	}
}

// mkfsArgv is r's mkfs command line for img, problems or not.
func mkfsArgv(r Resolved, img string) []string {
	var argv []string
	for _, a := range r.Mkfs.Argv {
		argv = append(argv, substitute(a, map[string]string{"{image}": img, "{epoch}": fmt.Sprint(testEpoch)}))
	}
	return argv
}

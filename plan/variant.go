package plan

// BootImage is the index of the image the board boots: the one holding
// the root partition, else the first. Tests run on its partitions.
func (v *Variant) BootImage() int {
	for i, img := range v.Images {
		for _, p := range img.Partitions {
			if p.Root {
				return i
			}
		}
	}
	return 0
}

// TestPartition finds the partition a test names: the boot image's, or
// else the first image's with that name (validation refuses a name that
// several other images share).
func (v *Variant) TestPartition(name string) (*Partition, bool) {
	if len(v.Images) == 0 {
		return nil, false
	}
	boot := &v.Images[v.BootImage()]
	for i := range boot.Partitions {
		if boot.Partitions[i].Name == name {
			return &boot.Partitions[i], true
		}
	}
	for _, img := range v.Images {
		for i := range img.Partitions {
			if img.Partitions[i].Name == name {
				return &img.Partitions[i], true
			}
		}
	}
	return nil, false
}

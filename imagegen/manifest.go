package imagegen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/fsbench/fsbench/internal/atomicfile"
	"github.com/fsbench/fsbench/plan"
)

// ManifestFormat names the manifest's JSON schema.
const ManifestFormat = "fsbench-manifest/1"

// Manifest describes what a build wrote, for reviewers and for the runs
// that use the images.
type Manifest struct {
	Format      string            `json:"format"`
	Spec        string            `json:"spec"`
	Fingerprint string            `json:"fingerprint"`
	Variant     string            `json:"variant"`
	Epoch       int64             `json:"source_date_epoch"`
	Bootargs    string            `json:"bootargs"`
	Tools       map[string]string `json:"tools"`
	Images      []ImageManifest   `json:"images"`
	Userland    *UserlandManifest `json:"userland,omitempty"`
	Payload     *PayloadManifest  `json:"payload,omitempty"`
	Boot        *BootManifest     `json:"boot,omitempty"`
}

// ImageManifest is one image file.
type ImageManifest struct {
	File       string              `json:"file"`
	Size       int64               `json:"size"`
	BmapSHA256 string              `json:"bmap_sha256"`      // digest of IMAGE.bmap: size, layout and every data byte
	SHA256     string              `json:"sha256,omitempty"` // of the whole image, with Options.FullSHA256
	Table      string              `json:"table"`
	DiskID     string              `json:"disk_id"`
	Partitions []PartitionManifest `json:"partitions"`
}

// PartitionManifest is one partition of an image.
type PartitionManifest struct {
	Name          string `json:"name"`
	Number        int    `json:"number"`
	Offset        int64  `json:"offset"`
	Size          int64  `json:"size"`
	UUID          string `json:"uuid"`
	Type          string `json:"type"`
	Filesystem    string `json:"filesystem,omitempty"`
	FSUUID        string `json:"filesystem_uuid,omitempty"`
	Label         string `json:"label,omitempty"`
	Deterministic bool   `json:"deterministic"`
}

func newManifest(p *plan.Plan, v plan.Variant, epoch int64) *Manifest {
	// The Fingerprint is set once the plan is sealed (Options.Sealed).
	return &Manifest{Format: ManifestFormat, Spec: p.Spec, Variant: v.Name,
		Epoch: epoch, Bootargs: strings.Join(v.Bootargs, " ")}
}

func imageManifest(img plan.Image) *ImageManifest {
	im := &ImageManifest{File: img.File, Size: img.Size, Table: img.Table, DiskID: img.DiskID}
	for _, p := range img.Partitions {
		pm := PartitionManifest{Name: p.Name, Number: p.Number, Offset: p.Offset, Size: p.Size, UUID: p.UUID, Type: p.Type, Deterministic: true}
		if f := p.Filesystem; f != nil {
			pm.Filesystem, pm.FSUUID, pm.Label, pm.Deterministic = f.Type, f.UUID, f.Label, f.Deterministic
		}
		im.Partitions = append(im.Partitions, pm)
	}
	return im
}

// manifestFile writes m as indented JSON under a temporary name for
// path, for atomicfile.CommitAll to sync and rename.
func manifestFile(path string, m *Manifest) (*atomicfile.File, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return prepared(path, b.Bytes())
}

// ReadManifest reads a manifest.json that Build wrote.
func ReadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m.Format != ManifestFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", path, m.Format, ManifestFormat)
	}
	return &m, nil
}

// Package lava runs a spec's variants on a LAVA lab: it writes one LAVA
// job definition per variant (and per repetition) from the variant's
// build, checks each with LAVA's own schema (Debian's lava-common) and
// dispatcher (lava-run --validate), submits them to a server's REST API,
// and turns a job's log back into fsbench results, so that a lab's run
// is reported like a local one.
//
// A job boots the image as fsbench's own targets do: on a LAVA qemu
// device, QEMU loads Debian's kernel and fsbench's initramfs (or U-Boot,
// as firmware, boots the image alone); on a real board the lab's flasher
// writes the image with its bmap and U-Boot boots it from its own boot
// files. The job's test is a LAVA monitor that follows the runner's
// console from its first step to the plan's end, reboots and watchdog
// resets included; the runner's result frames in the job's log carry the
// results. fsbench grows no scheduler: the lab schedules the jobs.
//
// It sits under driver/ beside the QEMU and board targets, whose build
// outputs and console follower it shares. It never runs a shell, and no
// spec value reaches a job but as one scalar: device types and tags are
// names, the kernel command line is the plan's, made of checked words.
package lava

import (
	"bytes"
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// Definition is a LAVA job definition, in the fields fsbench writes, in
// the order LAVA's documentation shows them.
type Definition struct {
	DeviceType string            `yaml:"device_type"`
	JobName    string            `yaml:"job_name"`
	Tags       []string          `yaml:"tags,omitempty"`
	Timeouts   Timeouts          `yaml:"timeouts"`
	Priority   string            `yaml:"priority"`
	Visibility string            `yaml:"visibility"`
	Context    *Context          `yaml:"context,omitempty"`
	Metadata   map[string]string `yaml:"metadata"`
	Actions    []Action          `yaml:"actions"`
}

// Timeouts are the job's: the whole job, an action by default, and a
// connection's silence.
type Timeouts struct {
	Job        Timeout `yaml:"job"`
	Action     Timeout `yaml:"action"`
	Connection Timeout `yaml:"connection"`
}

// Timeout is a LAVA timeout, in whole minutes (LAVA wants at least one).
type Timeout struct {
	Minutes int `yaml:"minutes"`
}

// minutes rounds d up to whole minutes, at least one.
func minutes(d time.Duration) Timeout {
	return Timeout{Minutes: max(1, int((d+time.Minute-1)/time.Minute))}
}

// Duration is t as a time.Duration.
func (t Timeout) Duration() time.Duration { return time.Duration(t.Minutes) * time.Minute }

// Context is the job context a LAVA qemu device type reads: the
// architecture, the accelerator, the memory and the options fsbench adds
// to the QEMU command line.
type Context struct {
	Arch         string   `yaml:"arch"`
	NoKVM        bool     `yaml:"no_kvm"`
	CPU          string   `yaml:"cpu,omitempty"`
	Machine      string   `yaml:"machine,omitempty"`
	Memory       int      `yaml:"memory"`
	ExtraOptions []string `yaml:"extra_options,omitempty"`
}

// Action is one step of the job: exactly one of its fields is set.
type Action struct {
	Deploy *Deploy `yaml:"deploy,omitempty"`
	Boot   *Boot   `yaml:"boot,omitempty"`
	Test   *Test   `yaml:"test,omitempty"`
}

// Deploy puts the artifacts where the device boots them: "tmpfs" for a
// qemu device, "flasher" for a board whose device dictionary writes
// {IMAGE} (with {BMAP}) to its storage.
type Deploy struct {
	To      string           `yaml:"to"`
	Timeout Timeout          `yaml:"timeout"`
	Images  map[string]Image `yaml:"images"`
}

// Image is one artifact the lab downloads.
type Image struct {
	URL       string `yaml:"url"`
	SHA256Sum string `yaml:"sha256sum,omitempty"`
	// ImageArg is the QEMU option that passes the file ({label} stands
	// for its path on the dispatcher).
	ImageArg string `yaml:"image_arg,omitempty"`
}

// Boot starts the device: method "qemu" on a qemu device, "u-boot" on a
// board.
type Boot struct {
	Method   string   `yaml:"method"`
	Media    string   `yaml:"media,omitempty"`
	Commands []string `yaml:"commands,omitempty"`
	Timeout  Timeout  `yaml:"timeout"`
}

// Test follows the console with monitors.
type Test struct {
	Timeout  Timeout   `yaml:"timeout"`
	Monitors []Monitor `yaml:"monitors"`
}

// Monitor is LAVA's test monitor: from Start to End on the console,
// each line matching Pattern is a test case.
type Monitor struct {
	Name      string            `yaml:"name"`
	Start     string            `yaml:"start"`
	End       string            `yaml:"end"`
	Pattern   string            `yaml:"pattern"`
	Fixupdict map[string]string `yaml:"fixupdict,omitempty"`
}

// YAML is the definition as LAVA reads it, with a comment heading it.
func (d *Definition) YAML(comment string) ([]byte, error) {
	var b bytes.Buffer
	if comment != "" {
		for _, line := range bytes.Split([]byte(comment), []byte("\n")) {
			b.WriteString("# ")
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("lava: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("lava: %w", err)
	}
	return b.Bytes(), nil
}

package report

// The charts of the ELC 2015 study's performance part (seed 000): fio
// bandwidth and CPU use, boot time and its variation, mount time, fsck
// time, and what mkfs leaves behind.

// fioCharts draws, per fio test, the bandwidth of every case, the CPU
// use during it and its CPU cost per gigabyte.
func (v *view) fioCharts() []*Chart {
	var out []*Chart
	for _, test := range v.tests["fio"] {
		var bw, cpu, cost, kthread []barGroup
		for _, c := range v.cases[[2]string{"fio", test}] {
			read, write := v.hasCase("fio", test, c, "read_bw"), v.hasCase("fio", test, c, "write_bw")
			switch {
			case read && write:
				bw = append(bw, barGroup{c + " read", c, "read_bw"}, barGroup{c + " write", c, "write_bw"})
			case write:
				bw = append(bw, barGroup{c, c, "write_bw"})
			default:
				// Also a case no candidate measured, so that its
				// failures show.
				bw = append(bw, barGroup{c, c, "read_bw"})
			}
			cpu = append(cpu, barGroup{c, c, "cpu_total"})
			cost = append(cost, barGroup{c, c, "cpu_s_per_gb"})
			kthread = append(kthread, barGroup{c, c, "kthread_cpu"})
		}
		out = append(out, v.barCharts(barSpec{key: "fio-bandwidth-" + test, title: "fio " + test + ": bandwidth per case",
			recipe: "fio", test: test, groups: bw, split: true})...)
		out = appendChart(out, v.barChart(barSpec{key: "fio-cpu-" + test, title: "fio " + test + ": CPU use (usr + sys) during the job",
			recipe: "fio", test: test, groups: cpu}))
		out = appendChart(out, v.barChart(barSpec{key: "fio-cpu-cost-" + test, title: "fio " + test + ": CPU time per GB moved",
			recipe: "fio", test: test, groups: cost}))
		out = appendChart(out, v.barChart(barSpec{key: "fio-kthread-cpu-" + test, title: "fio " + test + ": kernel-thread CPU during the job",
			recipe: "fio", test: test, groups: kthread}))
	}
	return out
}

// bootCharts draws boot time measured both ways, and its run-to-run
// variation.
func (v *view) bootCharts() []*Chart {
	var out []*Chart
	for _, test := range v.tests["boot_time"] {
		var groups []barGroup
		cases := v.cases[[2]string{"boot_time", test}]
		for _, c := range cases {
			prefix := ""
			if len(cases) > 1 {
				prefix = c + " "
			}
			groups = append(groups,
				barGroup{prefix + "serial (host_boot)", c, "host_boot"},
				barGroup{prefix + "kernel log (target_boot)", c, "target_boot"})
		}
		out = appendChart(out,
			v.barChart(barSpec{key: "boot-time-" + test, title: "Boot time " + test + ": root mount to prompt",
				recipe: "boot_time", test: test, groups: groups, label: cvLabel}),
			v.barChart(barSpec{key: "boot-variation-" + test, title: "Boot time " + test + ": run-to-run variation",
				recipe: "boot_time", test: test, groups: groups, cv: true}))
	}
	return out
}

// cvLabel writes a boot time's coefficient of variation above its bar.
func cvLabel(r *Row) string {
	if r.HasCV {
		return "CV " + pct(r.CV)
	}
	return ""
}

// timeCharts draws real, user and system time of a timed recipe
// (mount_time, fsck_time), one chart per test.
func (v *view) timeCharts(recipe, what, title string) []*Chart {
	var out []*Chart
	for _, test := range v.tests[recipe] {
		var groups []barGroup
		cases := v.cases[[2]string{recipe, test}]
		for _, c := range cases {
			prefix := ""
			if len(cases) > 1 {
				prefix = c + " "
			}
			groups = append(groups,
				barGroup{prefix + "real", c, what + "_time"},
				barGroup{prefix + "user", c, what + "_user"},
				barGroup{prefix + "sys", c, what + "_sys"})
		}
		out = appendChart(out, v.barChart(barSpec{key: recipe + "-" + test, title: title + " " + test + ": real, user and system",
			recipe: recipe, test: test, groups: groups}))
	}
	return out
}

// mkfsCharts draws the space a new filesystem uses and the kernel
// threads its mount starts.
func (v *view) mkfsCharts() []*Chart {
	var out []*Chart
	for _, test := range v.tests["mkfs_stats"] {
		var used, threads []barGroup
		cases := v.cases[[2]string{"mkfs_stats", test}]
		for _, c := range cases {
			prefix := ""
			if len(cases) > 1 {
				prefix = c + " "
			}
			used = append(used, barGroup{prefix + "used when empty", c, "fs_used"})
			threads = append(threads, barGroup{prefix + "filesystem threads", c, "kthreads_added"},
				barGroup{prefix + "pool workers", c, "kworkers_added"})
		}
		out = appendChart(out,
			v.barChart(barSpec{key: "mkfs-space-" + test, title: "mkfs " + test + ": space used on the empty filesystem",
				recipe: "mkfs_stats", test: test, groups: used}),
			v.barChart(barSpec{key: "mkfs-kthreads-" + test, title: "mkfs " + test + ": kernel threads started by the mount",
				recipe: "mkfs_stats", test: test, groups: threads}))
	}
	return out
}

// appendChart appends the charts that are not nil.
func appendChart(out []*Chart, cs ...*Chart) []*Chart {
	for _, c := range cs {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

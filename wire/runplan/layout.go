package runplan

// Where the runner's start hooks go, by init system.
const (
	SysVHook    = "/etc/init.d/S99fsbench"
	SystemdUnit = "/etc/systemd/system/fsbench.service"
)

// PayloadLayout lists what the payload puts into the root filesystem of a
// board whose init system is init ("" for both hooks): its directories,
// and its files and links. A spec's own files may not take their places.
func PayloadLayout(init string) (dirs, files []string) {
	dirs = []string{"/etc", "/etc/fsbench", "/usr", "/usr/bin", "/var", "/var/lib", DefaultState}
	files = []string{RunnerPath, PlanPath}
	if init == "" || init == "busybox" || init == "sysvinit" {
		dirs = append(dirs, "/etc/init.d")
		files = append(files, SysVHook)
	}
	if init == "sysvinit" {
		for _, lvl := range []string{"2", "3", "4", "5"} {
			dirs = append(dirs, "/etc/rc"+lvl+".d")
			files = append(files, "/etc/rc"+lvl+".d/S99fsbench")
		}
	}
	if init == "" || init == "systemd" {
		dirs = append(dirs, "/etc/systemd", "/etc/systemd/system", "/etc/systemd/system/multi-user.target.wants")
		files = append(files, SystemdUnit, "/etc/systemd/system/multi-user.target.wants/fsbench.service")
	}
	return dirs, files
}

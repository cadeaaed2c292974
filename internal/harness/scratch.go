package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// ScratchDir returns where runs keep their temporary files: $MUTATE_TMPDIR
// if set, else /dev/shm where it is a writable directory that may hold and
// execute test binaries (in memory: the suite's SQLite files then cost no
// disk syncs, which halves its run time), else the system's temporary
// directory.
func ScratchDir() string {
	if dir := os.Getenv("MUTATE_TMPDIR"); dir != "" {
		return dir
	}
	const shm = "/dev/shm"
	if fi, err := os.Stat(shm); err == nil && fi.IsDir() && roomy(shm) {
		if probe, err := os.MkdirTemp(shm, "mutate-probe-"); err == nil {
			os.Remove(probe)
			return shm
		}
	}
	return os.TempDir()
}

// tempEnv returns the environment that puts every temporary file of a go
// command or a test binary, the go command's work directory and the tests'
// own, under dir, so that removing the run's directory removes them even
// when the run was killed before it could clean up.
func tempEnv(dir string) ([]string, error) {
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	return []string{"TMPDIR=" + tmp, "GOTMPDIR=" + tmp}, nil
}

// writeOverlay writes files (absolute path in the package: source) under
// dir and the overlay that maps each path to its copy, and returns the
// overlay's path.
func writeOverlay(dir string, files map[string][]byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	replace := map[string]string{}
	for path, src := range files {
		file := filepath.Join(dir, filepath.Base(path))
		if err := os.WriteFile(file, src, 0o644); err != nil {
			return "", err
		}
		replace[path] = file
	}
	data, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, "overlay.json")
	return overlay, os.WriteFile(overlay, data, 0o644)
}

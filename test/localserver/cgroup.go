/*
Copyright The Stencil Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package localserver

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Cgroup is a memory cgroup of the test's own, made under the test process's cgroup, that a
// Server is started in (Server.Cgroup): the kernel holds the process (and the build workers
// and plugins it starts) to the limit as it holds a container, and kills it at the limit.
type Cgroup struct {
	// Dir is the cgroup's directory; V2 says it is of the unified hierarchy.
	Dir string
	V2  bool
	// Limit is its memory limit in bytes.
	Limit int64
}

// NewCgroup makes a memory cgroup named name, limited to limit bytes (swap included where the
// kernel counts it), under the cgroup of this process: cgroup v2 when this process's cgroup
// may have a child with the memory controller, else the v1 memory hierarchy. Without either
// (no writable cgroup file system), it says why.
func NewCgroup(name string, limit int64) (*Cgroup, error) {
	var reasons []string
	for _, try := range []func(string, int64) (*Cgroup, error){newCgroupV2, newCgroupV1} {
		c, err := try(name, limit)
		if err == nil {
			return c, nil
		}
		reasons = append(reasons, err.Error())
	}
	return nil, fmt.Errorf("no memory cgroup can be made here: %s", strings.Join(reasons, "; "))
}

// ownCgroup returns this process's cgroup path in the hierarchy whose controllers include
// controller ("" for the unified one).
func ownCgroup(controller string) (string, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		parts := strings.SplitN(scanner.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if controller == "" && parts[0] == "0" && parts[1] == "" {
			return parts[2], nil
		}
		for _, c := range strings.Split(parts[1], ",") {
			if controller != "" && c == controller {
				return parts[2], nil
			}
		}
	}
	return "", fmt.Errorf("no %q line in /proc/self/cgroup", controller)
}

func newCgroupV2(name string, limit int64) (*Cgroup, error) {
	own, err := ownCgroup("")
	if err != nil {
		return nil, fmt.Errorf("cgroup v2: %v", err)
	}
	for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		var st syscall.Statfs_t
		if syscall.Statfs(root, &st) != nil || st.Type != 0x63677270 { // CGROUP2_SUPER_MAGIC
			continue
		}
		parent := filepath.Join(root, own)
		controllers, err := os.ReadFile(filepath.Join(parent, "cgroup.controllers"))
		if err != nil || !strings.Contains(" "+string(controllers)+" ", " memory ") {
			continue
		}
		// A process's own cgroup may not have both processes and children with controllers
		// (the "no internal processes" rule); a child of it is made and given memory.
		_ = os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+memory"), 0o644)
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("cgroup v2: %v", err)
		}
		c := &Cgroup{Dir: dir, V2: true, Limit: limit}
		for file, value := range map[string]string{"memory.max": strconv.FormatInt(limit, 10), "memory.swap.max": "0"} {
			if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0o644); err != nil && file == "memory.max" {
				_ = os.Remove(dir)
				return nil, fmt.Errorf("cgroup v2: %v", err)
			}
		}
		return c, nil
	}
	return nil, errors.New("cgroup v2: no unified hierarchy with the memory controller for this process")
}

func newCgroupV1(name string, limit int64) (*Cgroup, error) {
	own, err := ownCgroup("memory")
	if err != nil {
		return nil, fmt.Errorf("cgroup v1: %v", err)
	}
	dir := filepath.Join("/sys/fs/cgroup/memory", own, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cgroup v1: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "memory.limit_in_bytes"), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("cgroup v1: %v", err)
	}
	// Swap counts against the limit too, where the kernel accounts it: as a container's.
	_ = os.WriteFile(filepath.Join(dir, "memory.memsw.limit_in_bytes"), []byte(strconv.FormatInt(limit, 10)), 0o644)
	return &Cgroup{Dir: dir, Limit: limit}, nil
}

// Add moves process pid into the cgroup.
func (c *Cgroup) Add(pid int) error {
	return os.WriteFile(filepath.Join(c.Dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644)
}

// OOMKills is how many processes of the cgroup the kernel killed at its limit.
func (c *Cgroup) OOMKills() (int64, error) {
	file := "memory.oom_control"
	if c.V2 {
		file = "memory.events"
	}
	data, err := os.ReadFile(filepath.Join(c.Dir, file))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if value, ok := strings.CutPrefix(line, "oom_kill "); ok {
			return strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		}
	}
	return 0, fmt.Errorf("no oom_kill count in %s", file)
}

// Peak is the most memory the cgroup's processes held together, page cache included (which
// the kernel reclaims before it kills).
func (c *Cgroup) Peak() (int64, error) {
	file := "memory.max_usage_in_bytes"
	if c.V2 {
		file = "memory.peak"
	}
	data, err := os.ReadFile(filepath.Join(c.Dir, file))
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
}

// Remove removes the cgroup, once its processes are gone.
func (c *Cgroup) Remove() error {
	var err error
	for range 50 {
		if err = os.Remove(c.Dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

//go:build !linux

package schedule_test

import "testing"

func roMount(t *testing.T, dir string) { t.Skip("read-only bind mounts are Linux's") }

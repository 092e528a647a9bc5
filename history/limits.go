package history

import "time"

func (j Journal) lockTimeout() time.Duration {
	switch {
	case j.LockTimeout == 0:
		return DefaultLockTimeout
	case j.LockTimeout < 0:
		return 0
	}
	return j.LockTimeout
}

func (j Journal) maxSize() int64 {
	if j.MaxSize <= 0 {
		return defaultMaxSize
	}
	return j.MaxSize
}

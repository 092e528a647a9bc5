package pkgstore

// WithSlowPath returns o set to read every release through os.Root, the
// way the scan reads a release its fast path finds anything unusual in:
// tests check that both paths find the same.
func WithSlowPath(o Options) Options {
	o.slowPath = true
	return o
}

// WithStreamLimits returns o with the caps of a DEPS or TDEPS file read
// line by line (depsStreamLimit, depsStreamIdentBytes) replaced.
func WithStreamLimits(o Options, limit int64, identBytes int) Options {
	o.streamLimit, o.streamIdentBytes = limit, identBytes
	return o
}

var (
	SupervisorPicks    = supervisorPicks
	DefaultBinlinkDirs = defaultBinlinkDirs
	ParseInstallWindow = parseInstallWindow
	ErrLockUnavailable = errLockUnavailable
)

const DefaultInstallWindow = defaultInstallWindow

var IsNotice = isNotice

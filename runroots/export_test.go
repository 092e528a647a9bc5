package runroots

// FinderAt is m reading the processes under procRoot.
func FinderAt(procRoot string, m Mode) finder { return finder{procRoot: procRoot, mode: m} }

var Scan = scanProcs

type (
	Result = procScan
	Use    = procUse
	Held   = procHeld
	Kind   = useKind
)

const (
	KindExe     = kindExe
	KindMap     = kindMap
	KindFD      = kindFD
	KindCwd     = kindCwd
	KindRoot    = kindRoot
	KindEnv     = kindEnv
	KindCmdline = kindCmdline
)

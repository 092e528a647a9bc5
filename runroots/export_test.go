package runroots

// FinderAt is m reading the processes under procRoot.
func FinderAt(procRoot string, m Mode) finder { return finder{procRoot: procRoot, mode: m} }

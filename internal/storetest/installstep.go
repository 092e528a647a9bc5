package storetest

// Step is a point in Habitat's install sequence at which Installer.At is
// called.
type Step string

const (
	// StepDownloading: the archive is written to the cache as a
	// .tmpXXXXXX file, not yet renamed (Point.Path is that file).
	StepDownloading Step = "downloading"
	// StepFetched: the archive was just renamed into the cache as
	// ORIGIN-NAME-VERSION-RELEASE-TARGET.hart.
	StepFetched Step = "fetched"
	// StepCached: the archive was already in the cache and is used as
	// it is (its mtime may be days old).
	StepCached Step = "cached"
	// StepUsing: a TDEPS entry of the package being installed is
	// installed, "Using", and will not be installed again.
	StepUsing Step = "using"
	// StepDepsChecked: every TDEPS entry is Using or its archive is in
	// the cache; nothing is unpacked yet and no temp directory exists.
	StepDepsChecked Step = "deps-checked"
	// StepTempDir: the temp directory
	// ORIGIN/NAME/VERSION/.hab-pkg-install-RELEASEXXXXXX exists, empty.
	StepTempDir Step = "temp-dir"
	// StepUnpacking: one more archive entry was unpacked (Point.Entry,
	// Point.Done of Point.Total).
	StepUnpacking Step = "unpacking"
	// StepUnpacked: every entry is unpacked, not yet renamed.
	StepUnpacked Step = "unpacked"
	// StepRenamed: TEMP/hab/pkgs/O/N/V/R was renamed to O/N/V/R; TEMP
	// still exists.
	StepRenamed Step = "renamed"
	// StepInstalled: TEMP is removed; this release is installed.
	StepInstalled Step = "installed"
)

// Point is where an install is when Installer.At is called.
type Point struct {
	Step Step
	// Ident is the release the step is about: the package asked for, or
	// one of its TDEPS.
	Ident string
	// Top is true when Ident is the package asked for.
	Top bool
	// Path is the absolute path the step is about: the cached archive
	// (or its .tmp file), the temp directory (StepTempDir to
	// StepRenamed), the release directory (StepInstalled, StepUsing).
	Path string
	// Entry is the archive entry just unpacked (StepUnpacking), Done
	// how many are, of Total.
	Entry       string
	Done, Total int
}

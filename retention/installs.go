package retention

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
)

// indexInstalls lists what installs in progress name, and returns why
// every release waits while one is active: what a package found installed
// ("Using") shows nowhere until its own install directory exists.
func (p *Plan) indexInstalls(listed func(r *pkgstore.Release, code Code, text string)) (wait string) {
	inv := p.Inventory
	all := installsOf(inv, p.Found)
	for _, in := range all {
		what := "the install in progress at " + installPath(in)
		if in.Release.Origin != "" {
			what = "the install in progress of " + in.Release.String() + " at " + installPath(in)
		}
		if in.By != "" {
			what += " (" + in.By + ")"
		}
		for _, d := range in.Deps {
			if r := inv.Installed(d); r != nil {
				listed(r, CodeInstalling, "needed by "+what+" (read from "+in.From+")")
			}
		}
	}
	for _, in := range all {
		if in.Active {
			return waitWhy(in) // one reason is enough
		}
	}
	return ""
}

// installsOf are the finders' installs, then the inventory's, each once.
func installsOf(inv *pkgstore.Inventory, found []Found) []pkgstore.Installing {
	held := foundInstalls(found)
	seen := map[string]bool{}
	for _, in := range held {
		seen[in.Path] = true
	}
	all := slices.Clip(held)
	for _, in := range slices.Concat(inv.Installing, inv.Fetched) {
		if !seen[in.Path] {
			all = append(all, in)
		}
	}
	return all
}

func waitWhy(in pkgstore.Installing) string {
	changed := in.Changed.UTC().Format(time.RFC3339)
	switch {
	case in.By != "":
		return heldWhy(in)
	case !in.Known:
		return fmt.Sprintf("removals wait for the install in progress at %s (changed %s) to end: what it needs cannot be read yet (%s)",
			installPath(in), changed, in.From)
	case in.Download:
		return fmt.Sprintf("removals wait for the download in progress at %s (changed %s) to end: Habitat downloads a package's missing dependencies before it unpacks any, and the package may use releases it found installed",
			installPath(in), changed)
	case strings.HasPrefix(in.Path, pkgstore.ArtifactCacheDir+"/"):
		return fmt.Sprintf("removals wait for the install of %s, whose archive came into the cache at %s (changed %s): Habitat verifies a fetched archive before it unpacks it, and the package it may be installing it for uses releases it found installed, which no archive names",
			in.Release, installPath(in), changed)
	default:
		return fmt.Sprintf("removals wait for the install in progress at %s (changed %s) to end: Habitat may be installing it for a package that uses releases it found installed",
			installPath(in), changed)
	}
}

func heldWhy(in pkgstore.Installing) string {
	switch {
	case in.By == "":
		return ""
	case in.Path == "":
		return fmt.Sprintf("removals wait for the install in progress to end: %s (Habitat verifies and installs a package's dependencies before its own install directory appears, and between the opens of a cached archive nothing else shows it)", in.By)
	case !in.Known:
		return fmt.Sprintf("removals wait for the install in progress at %s (%s) to end: what it needs cannot be read (%s)",
			installPath(in), in.By, in.From)
	case strings.HasPrefix(in.Path, pkgstore.ArtifactCacheDir+"/"):
		return fmt.Sprintf("removals wait for the install of %s to end: %s (Habitat reads and verifies a cached archive before it unpacks it, and the package it installs it for uses releases it found installed, which no archive names)",
			in.Release, in.By)
	default:
		return fmt.Sprintf("removals wait for the install in progress at %s to end: %s", installPath(in), in.By)
	}
}

func installPath(in pkgstore.Installing) string {
	if strings.HasPrefix(in.Path, pkgstore.ArtifactCacheDir+"/") {
		return in.Path
	}
	return pkgstore.StoreDir + "/" + in.Path
}

// Package pressure limits a retention plan to what the disk needs: below
// min-free it takes the plan's removals, most superseded first, then
// oldest installed, until max-free would be free (a release other removals
// need goes after them), and keeps the rest; at or above min-free it keeps
// them all. It never removes what the plan keeps. See ExampleLimits.
package pressure

package runplan

import "fmt"

// FlakeyFeatures are the dm-flakey feature arguments of a dm_flakey fault
// (after <num_features>, which is their count): the seed's case gives
// "corrupt_bio_byte 1 w 0 0". error_all has none. The plan shows them and
// the runner loads them, so both come from here.
func FlakeyFeatures(fault string, byteN, value, flags int64) []string {
	corrupt := func(dir string) []string {
		return []string{"corrupt_bio_byte", fmt.Sprint(byteN), dir, fmt.Sprint(value), fmt.Sprint(flags)}
	}
	switch fault {
	case "corrupt_writes":
		return corrupt("w")
	case "corrupt_reads":
		return corrupt("r")
	case "drop_writes", "error_writes":
		return []string{fault}
	}
	return nil
}

package report

// flashSections are the context's sections beyond its recipes' charts,
// in this order: the filesystem's write amplification, the flash model's
// lifetime, and what the storage says of its geometry and health; and the
// endurance runs the lifetime section modelled, for the JSON export.
func (v *view) flashSections() ([]*Section, []*enduranceRun) {
	life, runs := v.lifetime()
	var out []*Section
	for _, s := range []*Section{v.writeAmplification(), life, v.flashGeometry()} {
		if s != nil {
			out = append(out, s)
		}
	}
	return out, runs
}

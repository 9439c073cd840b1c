// Package ftl models a flash translation layer, to turn the device-level
// write trace of a workload (package wire/blocktrace, recorded by the
// runner from block_rq_complete) into what the NAND would see: NAND-level
// write amplification, erase counts per erase block, and a projected
// lifetime in years. It is a model, not a measurement: an eMMC's firmware
// is secret and differs from it. Use it to compare workloads and
// filesystems on the same assumptions, not to promise a lifetime.
//
// # The model
//
// The device (Settings) has NAND pages of PageSize bytes, the unit of
// programming and of the mapping, erase blocks of EraseBlockSize bytes,
// LogicalBytes of user capacity, and OverProvisioning spare capacity on
// top, rounded up to whole erase blocks.
//
//   - Page-level mapping: each logical page maps to one physical page (an
//     erase block and a page in it). A page is programmed whole: a host
//     write that covers part of a page programs the whole page again, its
//     other sectors read back and merged (read-modify-write).
//   - A volatile write buffer of one page (unless NoWriteBuffer): host
//     data accumulates there and is programmed when its page is complete,
//     when a write goes to another page, when the trace ends (the device
//     idles), or when a flush or a FUA write asks for it; then the page is
//     programmed partial, padded, and programmed again when the host
//     completes it. That padding is the cost of fsync on flash, and it is
//     counted (Counters.FlushPaddingBytes).
//   - Discard unmaps the pages it covers whole; partial pages keep their
//     data. Reads are ignored.
//   - Host writes and garbage collection's copies fill two separate open
//     blocks. Before the host's open block takes a free block, greedy
//     garbage collection runs until more than GCFreeBlocks blocks are
//     free: the victim is the closed block with the fewest valid pages,
//     ties to the least erased, then the lowest index; its valid pages
//     are copied to GC's open block and it is erased. Free blocks are
//     taken least-erased first (dynamic wear leveling); nothing moves
//     static data to level wear (no static wear leveling), so the report
//     shows how uneven the wear gets.
//   - Nothing is random but the optional aging of static data, which
//     Settings.Seed seeds; the same trace and settings give the same
//     result, to the last erase count.
//
// # Steady state
//
// A short trace on a fresh device meets only free blocks: no garbage
// collection, and a write amplification of about 1 that misleads.
// SteadyState therefore preconditions the device (Precondition: the
// static data, StaticShare of the logical space at its end, written
// once, sequentially, and with AgeStatic overwritten at random until
// garbage collection is steady), then replays the trace until the free
// blocks have run out (warm-up passes), then in rounds of passes, each
// programming at least Convergence.RoundBlocks erase blocks' worth of
// pages, until two rounds' write amplification agree within
// Convergence.Tolerance or Convergence.MaxRounds is reached. The figures
// are the last two rounds'; Result says how many passes it took and
// whether it converged.
//
// # Lifetime
//
// Result.Lifetime projects the steady state's erases per host byte onto a
// device (Endurance: rated P/E cycles, NAND capacity, host bytes a day):
// the years until the mean block reaches its rated cycles, which perfect
// wear leveling would give, and until the most-worn block does, with the
// wear as uneven as the model measured it from the trace's first pass.
// Result.Assumptions and Lifetime.Assumptions say, one sentence each,
// what the figures rest on; print them beside the figures.
//
// # Limits
//
//   - Replaying one trace repeats it in the same order: a trace that
//     rewrites its data once per pass, in the same order, invalidates
//     blocks in the order it wrote them, and garbage collection finds
//     empty victims. A workload that rewrites in a different order each
//     time pays more than the model shows.
//   - One buffered page, one open block for the host: real devices
//     buffer more, stripe over dies and planes, and may separate hot and
//     cold data.
//   - Not modelled: SLC caches and pseudo-SLC modes, read disturb, data
//     retention and refresh, bad blocks and their spares, the firmware's
//     own mapping unit (some eMMCs map in units larger than a page, which
//     raises the cost of small writes), power-loss protection, and the
//     filesystem's own write amplification, which the trace already
//     contains.
//   - The lifetime assumes the trace's steady state lasts the device's
//     life at the given host bytes a day; the skew of the most-worn block
//     is noisy when measured on few erases a block.
//
// # The published check
//
// Under uniform random page writes, greedy garbage collection has a
// closed form in the limit of a large device,
//
//	A = (1+ρ) / ((1+ρ) + W₀(−(1+ρ)·e^−(1+ρ))),  ρ = spare / logical pages,
//
// L. Xiang, B. M. Kurkoski, "An Improved Analytic Expression for Write
// Amplification in NAND Flash", arXiv:1110.4245 (2011); it gives 2.36 at
// ρ = 0.3, as the paper does. The tests run the model on 256 erase blocks
// of 64 pages at ρ = 0.15, 0.28 and 0.5 and require agreement within 3%;
// it agrees within about 1%.
package ftl

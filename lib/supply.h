/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Supply bound functions: the least CPU time a reservation is sure to give
 * in any window of length t, whatever the phase of the window.
 *
 * Periodic resource Γ(Π, Θ) (Shin & Lee, "Periodic Resource Model for
 * Compositional Real-Time Guarantees", RTSS 2003, Eq. (1)-(2)): Θ units in
 * every period Π, placed anywhere. The worst window starts right after a
 * period's supply that came as early as possible and sees the next one come
 * as late as possible: a blackout of 2(Π - Θ), then Θ every Π.
 *
 *   t' = t - (Π - Θ),  sbf(t) = ⌊t'/Π⌋Θ + max(0, t' - Π⌊t'/Π⌋ - (Π - Θ))
 *
 * Multiprocessor periodic resource ⟨Π, Θ, m'⟩ (Shin, Easwaran & Lee,
 * ECRTS 2008, Eq. (1); Easwaran, Shin & Lee, Real-Time Systems 2009):
 * Θ units in every period Π on at most m' CPUs at a time.
 *
 * HCBS gives a group the same runtime r on each of the m' CPUs of its
 * cpuset, so the interface hcbsd reserves is ⟨Π, m'·r, m'⟩; there the
 * MPR bound equals m' copies of Γ(Π, r) (every CPU is a periodic resource
 * of its own), which the unit tests check point by point.
 *
 * Times are integer microseconds; every function is exact.
 */

#include <stdint.h>

/* sbf of Γ(period, budget) at t; budget <= period. */
uint64_t hcbs_prm_sbf(uint64_t period, uint64_t budget, uint64_t t);

/* The smallest t with hcbs_prm_sbf(period, budget, t) >= demand; budget > 0. */
uint64_t hcbs_prm_sbf_inverse(uint64_t period, uint64_t budget, uint64_t demand);

/* sbf of ⟨period, budget, cpus⟩ at t (ECRTS 2008 Eq. (1)); budget <= cpus * period. */
uint64_t hcbs_mpr_sbf(uint64_t period, uint64_t budget, unsigned cpus, uint64_t t);

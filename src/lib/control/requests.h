/*
 * requests.h -- answering the requests of the signals and of the heapprof
 * command (signal_dump, signal_toggle, the bell, the control files).
 */
#ifndef HP_CONTROL_REQUESTS_H
#define HP_CONTROL_REQUESTS_H

#pragma GCC visibility push(hidden)

/* Does what req asks of these (the triggers' bits are left to the
 * helper thread); returns req with HP_REQ_STATE added when the state
 * file should be published again (the caller does it). */
unsigned hp_requests_do(unsigned req);

/* Who answers: the program's threads (no helper thread), or the helper. */
void hp_requests_answer_here(void);
void hp_requests_answer_in_helper(void);

#pragma GCC visibility pop

#endif

/*
 * version.h -- the release version, shared by the library and the command.
 */
#ifndef HP_VERSION_H
#define HP_VERSION_H

#define HEAPPROF_VERSION "0.1.0"

#endif

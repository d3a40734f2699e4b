/*
 * cuda_runtime.h: the part of the CUDA runtime TCA programs use, on the co-simulated
 * cluster (`peach2 cc`, `peach2 run`). Device memory is the simulated GPUs' memory
 * behind their BARs (what GPUDirect RDMA exposes to PEACH2); a device pointer is not
 * dereferenceable on the host, as on a real GPU. Copies and memsets cost simulated
 * time from the profile. No kernels: computation on the GPU is not simulated.
 *
 * Errors: cudaErrorInvalidValue (NULL, size 0, a range outside a live device
 * allocation), cudaErrorMemoryAllocation, cudaErrorInvalidDevice,
 * cudaErrorInvalidDevicePointer (freeing what cudaMalloc did not return),
 * cudaErrorInvalidMemcpyDirection. cudaGetLastError returns the last error and resets it.
 */
#ifndef PEACH2_CUDA_RUNTIME_H
#define PEACH2_CUDA_RUNTIME_H

#include <stddef.h>
#include "peach2_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cudaError {
    cudaSuccess = P2_CUDA_SUCCESS,
    cudaErrorInvalidValue = P2_CUDA_ERROR_INVALID_VALUE,
    cudaErrorMemoryAllocation = P2_CUDA_ERROR_MEMORY_ALLOCATION,
    cudaErrorInvalidDevice = P2_CUDA_ERROR_INVALID_DEVICE,
    cudaErrorInvalidDevicePointer = P2_CUDA_ERROR_INVALID_DEVICE_POINTER,
    cudaErrorInvalidMemcpyDirection = P2_CUDA_ERROR_INVALID_MEMCPY_DIRECTION
} cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = P2_CUDA_MEMCPY_HOST_TO_HOST,
    cudaMemcpyHostToDevice = P2_CUDA_MEMCPY_HOST_TO_DEVICE,
    cudaMemcpyDeviceToHost = P2_CUDA_MEMCPY_DEVICE_TO_HOST,
    cudaMemcpyDeviceToDevice = P2_CUDA_MEMCPY_DEVICE_TO_DEVICE,
    cudaMemcpyDefault = P2_CUDA_MEMCPY_DEFAULT
};

cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaFree(void *devPtr);
/* Host memory the chip can reach (the node's host arena). */
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaGetLastError(void);
const char *cudaGetErrorString(cudaError_t error);

#ifdef __cplusplus
}
#endif
#endif

# Chooses at most one GPU backend and enables its language.
# Sets SEQFUSE_GPU_LANG to "CUDA", "HIP" or "" (CPU engine only).
include(CheckLanguage)
set(SEQFUSE_GPU_LANG "")

function(_seqfuse_want var result)
  string(TOUPPER "${${var}}" value)
  if(value STREQUAL "ON" OR value STREQUAL "TRUE" OR value STREQUAL "1")
    set(${result} REQUIRED PARENT_SCOPE)
  elseif(value STREQUAL "AUTO")
    set(${result} AUTO PARENT_SCOPE)
  else()
    set(${result} OFF PARENT_SCOPE)
  endif()
endfunction()

# Debian installs ROCm's CMake packages under the multiarch folder, where
# CMake 3.25's HIP support does not look: point it at a shim root, and tell
# clang where the HIP runtime is and that .cu files are HIP sources.
macro(_seqfuse_debian_hip_layout)
  set(_multiarch /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake)
  if(NOT CMAKE_HIP_COMPILER_ROCM_ROOT AND NOT EXISTS /usr/lib/cmake/hip-lang
     AND EXISTS ${_multiarch}/hip-lang/hip-lang-config.cmake)
    set(_shim ${CMAKE_BINARY_DIR}/rocm-shim)
    file(MAKE_DIRECTORY ${_shim}/lib/cmake)
    file(CREATE_LINK ${_multiarch}/hip-lang ${_shim}/lib/cmake/hip-lang SYMBOLIC)
    set(CMAKE_HIP_COMPILER_ROCM_ROOT ${_shim})
    set(ENV{CMAKE_PREFIX_PATH} "${_multiarch}:$ENV{CMAKE_PREFIX_PATH}")
    list(APPEND CMAKE_PREFIX_PATH ${_multiarch})
    if(NOT CMAKE_HIP_COMPILER AND EXISTS /usr/bin/clang++-15)
      set(CMAKE_HIP_COMPILER /usr/bin/clang++-15)
    endif()
    set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS} --rocm-path=/usr --rocm-device-lib-path=/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/amdgcn/bitcode")
  endif()
endmacro()

_seqfuse_want(SEQFUSE_CUDA want_cuda)
_seqfuse_want(SEQFUSE_HIP want_hip)

if(NOT want_cuda STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(CMAKE_CUDA_ARCHITECTURES ${SEQFUSE_CUDA_ARCHS})
    enable_language(CUDA)
    # CMake 3.25 does not know that nvcc 13 takes C++20; tell it the flag.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_EXTENSIONS OFF)
    find_package(CUDAToolkit REQUIRED)
    set(SEQFUSE_GPU_LANG CUDA)
  elseif(want_cuda STREQUAL "REQUIRED")
    message(FATAL_ERROR "SEQFUSE_CUDA=ON but no nvcc was found")
  endif()
endif()

if(NOT SEQFUSE_GPU_LANG AND NOT want_hip STREQUAL "OFF")
  _seqfuse_debian_hip_layout()
  check_language(HIP)
  if(CMAKE_HIP_COMPILER)
    set(CMAKE_HIP_ARCHITECTURES ${SEQFUSE_HIP_ARCHS})
    enable_language(HIP)
    find_package(hip REQUIRED CONFIG)
    set(SEQFUSE_GPU_LANG HIP)
  elseif(want_hip STREQUAL "REQUIRED")
    message(FATAL_ERROR "SEQFUSE_HIP=ON but no HIP compiler was found")
  endif()
endif()

# The one no-GPU pattern (docs/architecture.md): a domain's GPU engine files
# are compiled only with a backend; without one, a single "absent" file
# stands in, whose factories call seqfuse::no_gpu_backend(). No source file
# under src/ tests SEQFUSE_HAVE_GPU.
#   seqfuse_gpu_sources(<target> GPU <files>... ABSENT <file>)
function(seqfuse_gpu_sources target)
  cmake_parse_arguments(arg "" "ABSENT" "GPU" ${ARGN})
  if(SEQFUSE_GPU_LANG)
    target_sources(${target} PRIVATE ${arg_GPU})
  else()
    target_sources(${target} PRIVATE ${arg_ABSENT})
  endif()
endfunction()

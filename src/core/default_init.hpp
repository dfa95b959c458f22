// DefaultInitAllocator: vector::resize without writing the new elements.
// A std::vector value-initializes what resize adds, so one thread zero-fills
// (and, for fresh memory, faults in) a buffer that worker threads then
// overwrite anyway: for the 1 GB code array of a DNA input that serial fill
// took longer than the parallel encoding. With this allocator the workers'
// own first writes fault the pages in, in parallel. Only for trivially
// constructible elements that are all written before they are read.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace seqfuse {

template <class T, class Base = std::allocator<T>>
class DefaultInitAllocator : public Base {
  using Traits = std::allocator_traits<Base>;

 public:
  static_assert(std::is_trivially_default_constructible_v<T>);
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U, typename Traits::template rebind_alloc<U>>;
  };
  using Base::Base;

  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;  // default-initialized: no write
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    Traits::construct(static_cast<Base&>(*this), p, std::forward<Args>(args)...);
  }
};

}  // namespace seqfuse

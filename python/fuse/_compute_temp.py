"""fuse.compute's object form: caller-provided temporary storage.

cuda.compute's make_* functions: an algorithm built from example arrays and
its operator, then called with temp_storage first. temp_storage None asks
the bytes the call needs (nothing runs); a CUDA array of at least that many
bytes (256-byte aligned, as CuPy's and PyTorch's allocations are) runs the
pipeline's capture-safe form with its temporaries carved from it: the
results go straight into d_out (which must have the result's dtype and
size), select's count to d_num_selected_out on the device, nothing is
allocated and nothing waits for the device, so a call can be captured into
a CUDA graph. The size depends on num_items (and the GPU), not on values.
On NumPy arrays the CPU backend runs and temp_storage is not used.
fuse.compute exports the make_* functions.
"""

import numpy as np


class _Temp:
    """temp_storage of one call: `storage` (a fuse.gpu.DeviceArray, a NumPy
    array on the CPU, or None to ask the bytes) and the filter counts'
    device arrays ({result index: DeviceArray})."""

    def __init__(self, temp_storage, counts=None):
        self.storage = None
        if temp_storage is not None:
            from . import gpu
            if gpu.is_device_array(temp_storage):
                self.storage = gpu.checked_device_array(temp_storage,
                                                        "temp_storage")
            elif isinstance(temp_storage, np.ndarray):
                self.storage = temp_storage    # a CPU call: not used
            else:
                raise TypeError("temp_storage: expected a CUDA array or "
                                "None, got %s" % type(temp_storage).__name__)
        self.counts = counts or {}

    @property
    def query(self):
        return self.storage is None


def make_reduce_into(d_in, d_out, op, h_init):
    """reducer(temp_storage, d_in, d_out, num_items, h_init, stream=None):
    reduce_into with the caller's temporary storage."""
    from . import compute as C
    C._binary_fn(op, "make_reduce_into")

    def reducer(temp_storage, d_in, d_out, num_items, h_init, stream=None):
        return C.reduce_into(d_in, d_out, op, num_items, h_init, stream,
                             _temp=_Temp(temp_storage))
    return reducer


def _make_scan(name, op):
    from . import compute as C
    C._binary_fn(op, "make_" + name)
    algorithm = getattr(C, name)

    def scanner(temp_storage, d_in, d_out, num_items, init_value,
                stream=None):
        return algorithm(d_in, d_out, op, init_value, num_items, stream,
                         _temp=_Temp(temp_storage))
    return scanner


def make_inclusive_scan(d_in, d_out, op, init_value):
    """scanner(temp_storage, d_in, d_out, num_items, init_value,
    stream=None): inclusive_scan with the caller's temporary storage."""
    return _make_scan("inclusive_scan", op)


def make_exclusive_scan(d_in, d_out, op, init_value):
    """scanner(temp_storage, d_in, d_out, num_items, init_value,
    stream=None): exclusive_scan with the caller's temporary storage."""
    return _make_scan("exclusive_scan", op)


def make_select(d_in, d_out, d_num_selected_out, cond):
    """selector(temp_storage, d_in, d_out, d_num_selected_out, num_items,
    stream=None): select with the caller's temporary storage; the count is
    written to d_num_selected_out (int64 or uint64) on the device."""
    from . import compute as C
    if not callable(cond):
        raise TypeError("make_select: cond must be a function")

    def selector(temp_storage, d_in, d_out, d_num_selected_out, num_items,
                 stream=None):
        return C.select(d_in, d_out, d_num_selected_out, cond, num_items,
                        stream, _temp=_Temp(temp_storage))
    return selector


def make_segmented_reduce(d_in, d_out, *args, **kwargs):
    """segmented_reduce with the caller's temporary storage, in either of
    its forms (compute.segmented_reduce), told apart as there:
    make_segmented_reduce(d_in, d_out, op, h_init) gives
    reducer(temp_storage, d_in, d_out, num_segments, segment_size, h_init,
    stream=None); make_segmented_reduce(d_in, d_out, start_offsets_in,
    end_offsets_in, op, h_init) (cuda.compute's arguments, which it takes
    as keywords) gives reducer(temp_storage, d_in, d_out, num_segments,
    start_offsets_in, end_offsets_in, h_init, stream=None, op=None,
    max_segment_size=None), whose op is the one given here unless the call
    passes another."""
    from ._compute_segments import offsets_form
    if offsets_form(args, kwargs, at=0):
        return _make_offsets_reducer(*args, **kwargs)
    return _make_rows_reducer(*args, **kwargs)


def _make_rows_reducer(op, h_init):
    from . import compute as C
    C._binary_fn(op, "make_segmented_reduce")

    def reducer(temp_storage, d_in, d_out, num_segments, segment_size,
                h_init, stream=None):
        return C.segmented_reduce(d_in, d_out, op, h_init, num_segments,
                                  segment_size, stream,
                                  _temp=_Temp(temp_storage))
    return reducer


def _make_offsets_reducer(start_offsets_in, end_offsets_in, op, h_init):
    from . import compute as C
    C._binary_fn(op, "make_segmented_reduce")
    made = op

    def reducer(temp_storage, d_in, d_out, num_segments, start_offsets_in,
                end_offsets_in, h_init, stream=None, op=None,
                max_segment_size=None):
        return C.segmented_reduce(d_in, d_out, start_offsets_in,
                                  end_offsets_in,
                                  made if op is None else op, h_init,
                                  num_segments, stream, max_segment_size,
                                  _temp=_Temp(temp_storage))
    return reducer


def make_three_way_partition(d_in, d_first_part_out, d_second_part_out,
                             d_unselected_out, d_num_selected_out,
                             select_first_part_op, select_second_part_op,
                             compute_capability=None):
    """partitioner(temp_storage, d_in, d_first_part_out, d_second_part_out,
    d_unselected_out, d_num_selected_out, select_first_part_op,
    select_second_part_op, num_items, stream=None) (cuda.compute 1.1.1's
    names, which it takes as keywords): three_way_partition with the
    caller's temporary storage; the two counts are written to
    d_num_selected_out (int64 or uint64) on the device. The call's
    operators are used, as cuda.compute's are. compute_capability, for
    cuda.compute's ahead-of-time builds, is accepted and not used (fuse's
    kernels come from its cache)."""
    from . import compute as C
    C._unary_fn(select_first_part_op, "make_three_way_partition")
    C._unary_fn(select_second_part_op, "make_three_way_partition")

    def partitioner(temp_storage, d_in, d_first_part_out, d_second_part_out,
                    d_unselected_out, d_num_selected_out,
                    select_first_part_op, select_second_part_op, num_items,
                    stream=None):
        return C.three_way_partition(
            d_in, d_first_part_out, d_second_part_out, d_unselected_out,
            d_num_selected_out, select_first_part_op, select_second_part_op,
            num_items, stream, _temp=_Temp(temp_storage))
    return partitioner


def make_radix_sort(*, d_in_keys, d_out_keys, d_in_values, d_out_values,
                    order, compute_capability=None):
    """sorter(*, temp_storage, d_in_keys, d_out_keys, d_in_values,
    d_out_values, num_items, begin_bit=None, end_bit=None, stream=None)
    (cuda.compute 1.1.1's keywords): radix_sort in `order` with the
    caller's temporary storage; keys and values go straight into their
    outputs. compute_capability is accepted and not used."""
    from . import compute as C

    def sorter(*, temp_storage, d_in_keys, d_out_keys, d_in_values,
               d_out_values, num_items, begin_bit=None, end_bit=None,
               stream=None):
        return C.radix_sort(d_in_keys=d_in_keys, d_out_keys=d_out_keys,
                            d_in_values=d_in_values,
                            d_out_values=d_out_values, num_items=num_items,
                            order=order, begin_bit=begin_bit,
                            end_bit=end_bit, stream=stream,
                            _temp=_Temp(temp_storage))
    return sorter


def make_merge_sort(*, d_in_keys, d_in_values=None, d_out_keys,
                    d_out_values=None, op, compute_capability=None):
    """sorter(*, temp_storage, d_in_keys, d_in_values, d_out_keys,
    d_out_values, num_items, op, stream=None) (cuda.compute 1.1.1's
    keywords): merge_sort with the caller's temporary storage."""
    from . import compute as C
    C._binary_fn(op, "make_merge_sort")

    def sorter(*, temp_storage, d_in_keys, d_in_values, d_out_keys,
               d_out_values, num_items, op, stream=None):
        return C.merge_sort(d_in_keys, d_in_values, d_out_keys, d_out_values,
                            op, num_items, stream, _temp=_Temp(temp_storage))
    return sorter


def _one(h, name):
    """cuda.compute's object form passes a level as a 1-element array."""
    a = np.asarray(h)
    if a.size != 1:
        raise ValueError("%s: expected one value, got %d" % (name, a.size))
    return a.reshape(-1)[0]


def make_histogram_even(*, d_samples, d_histogram, h_num_output_levels,
                        h_lower_level, h_upper_level, num_samples,
                        compute_capability=None):
    """histogram(*, temp_storage, d_samples, d_histogram,
    h_num_output_levels, h_lower_level, h_upper_level, num_samples,
    stream=None) (cuda.compute 1.1.1's keywords; the levels as 1-element
    host arrays): histogram_even with the caller's temporary storage."""
    from . import compute as C

    def histogram(*, temp_storage, d_samples, d_histogram,
                  h_num_output_levels, h_lower_level, h_upper_level,
                  num_samples, stream=None):
        return C.histogram_even(
            d_samples, d_histogram,
            int(_one(h_num_output_levels, "h_num_output_levels")),
            _one(h_lower_level, "h_lower_level"),
            _one(h_upper_level, "h_upper_level"), num_samples, stream,
            _temp=_Temp(temp_storage))
    return histogram


def _make_search(name, comp):
    from . import compute as C
    algorithm = getattr(C, name)
    made = comp

    def searcher(*, d_data, num_items, d_values, num_values, d_out,
                 comp=None, stream=None):
        return algorithm(d_data=d_data, num_items=num_items,
                         d_values=d_values, num_values=num_values,
                         d_out=d_out, comp=made if comp is None else comp,
                         stream=stream)
    return searcher


def make_lower_bound(*, d_data, d_values, d_out, comp=None,
                     compute_capability=None):
    """searcher(*, d_data, num_items, d_values, num_values, d_out,
    comp=None, stream=None): lower_bound as an object (cuda.compute's; a
    binary search needs no temporary storage)."""
    return _make_search("lower_bound", comp)


def make_upper_bound(*, d_data, d_values, d_out, comp=None,
                     compute_capability=None):
    """As make_lower_bound, for upper_bound."""
    return _make_search("upper_bound", comp)


def make_unique_by_key(*, d_in_keys, d_in_items, d_out_keys, d_out_items,
                       d_out_num_selected, op, compute_capability=None):
    """uniquer(*, temp_storage, d_in_keys, d_in_items, d_out_keys,
    d_out_items, d_out_num_selected, op, num_items, stream=None)
    (cuda.compute 1.1.1's keywords): unique_by_key with the caller's
    temporary storage; the kept keys and items go straight into their
    outputs (of num_items elements) and the count into d_out_num_selected
    (int64 or uint64) on the device."""
    from . import compute as C
    C._binary_fn(op, "make_unique_by_key")

    def uniquer(*, temp_storage, d_in_keys, d_in_items, d_out_keys,
                d_out_items, d_out_num_selected, op, num_items, stream=None):
        return C.unique_by_key(d_in_keys=d_in_keys, d_in_items=d_in_items,
                               d_out_keys=d_out_keys, d_out_items=d_out_items,
                               d_out_num_selected=d_out_num_selected, op=op,
                               num_items=num_items, stream=stream,
                               _temp=_Temp(temp_storage))
    return uniquer

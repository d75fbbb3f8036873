"""Tables about aten ops: which are mere views or copies, which op type each belongs to, and the
common name a kernel engineer would use for it.

Keys are overload-packet names (``aten.addmm.default`` -> ``"addmm"``); in-place variants
(``relu_``) fall back to their functional name.
"""

from __future__ import annotations

# Layout-only ops: they move or relabel data but compute nothing, so typing and the canonical
# computation skip them (their output is treated as an alias of their input).
VIEW_OPS: frozenset[str] = frozenset(
    """view _unsafe_view reshape permute expand expand_as t transpose numpy_T contiguous clone detach
    alias lift_fresh lift_fresh_copy _to_copy to _to_dim_order_copy copy copy_ unsqueeze squeeze
    flatten unflatten slice select as_strided narrow split split_with_sizes unsafe_split unbind
    chunk movedim swapaxes view_as resize_ _reshape_alias unfold _conj _neg_view
    """.split()
)

# Ops that only create a tensor from scalars and shapes.
FACTORY_OPS: frozenset[str] = frozenset(
    """empty empty_like empty_strided zeros zeros_like ones ones_like full full_like scalar_tensor
    arange linspace rand rand_like randn randn_like randint randint_like normal uniform uniform_
    normal_ fill fill_ zero_ new_zeros new_ones new_full new_empty eye bernoulli bernoulli_
    """.split()
)

_TYPES: dict[str, tuple[str, ...]] = {
    "matmul": tuple(
        """mm addmm bmm baddbmm matmul linear dot vdot mv addmv addbmm addr outer _int_mm einsum
        _addmm_activation""".split()
    ),
    "conv": tuple(
        """convolution _convolution conv1d conv2d conv3d conv_transpose1d conv_transpose2d
        conv_transpose3d mkldnn_convolution _slow_conv2d_forward slow_conv3d_forward
        slow_conv_transpose2d slow_conv_transpose3d slow_conv_dilated2d slow_conv_dilated3d
        _convolution_mode conv_tbc""".split()
    ),
    "softmax": tuple("_softmax _log_softmax softmax log_softmax _safe_softmax".split()),
    "normalization": tuple(
        """native_layer_norm native_batch_norm native_group_norm _native_batch_norm_legit
        _native_batch_norm_legit_functional _native_batch_norm_legit_no_training batch_norm
        layer_norm group_norm instance_norm _fused_rms_norm rms_norm _batch_norm_with_update
        _batch_norm_no_update cudnn_batch_norm renorm""".split()
    ),
    "pooling": tuple(
        """max_pool1d max_pool2d max_pool3d max_pool2d_with_indices max_pool3d_with_indices
        avg_pool1d avg_pool2d avg_pool3d adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d
        _adaptive_avg_pool2d _adaptive_avg_pool3d adaptive_max_pool1d adaptive_max_pool2d
        adaptive_max_pool3d max_unpool2d max_unpool3d lp_pool1d lp_pool2d
        fractional_max_pool2d fractional_max_pool3d""".split()
    ),
    "scan": tuple("cumsum cumprod cummax cummin logcumsumexp _cummax_helper _cummin_helper".split()),
    "loss": tuple(
        """mse_loss l1_loss nll_loss nll_loss_forward nll_loss2d nll_loss2d_forward nll_loss_nd
        smooth_l1_loss huber_loss kl_div binary_cross_entropy binary_cross_entropy_with_logits
        soft_margin_loss multi_margin_loss multilabel_margin_loss multilabel_margin_loss_forward
        hinge_embedding_loss margin_ranking_loss cosine_embedding_loss triplet_margin_loss
        cross_entropy_loss poisson_nll_loss ctc_loss""".split()
    ),
    "reduction": tuple(
        """sum mean amax amin argmax argmin max min norm linalg_vector_norm linalg_norm frobenius_norm
        var std var_mean std_mean prod logsumexp all any median nanmedian nansum count_nonzero
        aminmax mode kthvalue topk sort""".split()
    ),
    "indexing": tuple(
        """index index_select gather scatter scatter_add scatter_reduce embedding embedding_bag
        _embedding_bag index_put index_add index_copy index_fill take masked_select
        masked_scatter one_hot""".split()
    ),
    "attention": tuple(
        """_scaled_dot_product_attention_math _scaled_dot_product_flash_attention
        _scaled_dot_product_flash_attention_for_cpu _scaled_dot_product_efficient_attention
        _scaled_dot_product_cudnn_attention scaled_dot_product_attention
        _scaled_dot_product_fused_attention_overrideable""".split()
    ),
}
TYPE_OF: dict[str, str] = {op: t for t, ops in _TYPES.items() for op in ops}

# Common names for ops whose aten name is not what a kernel engineer says.
COMMON_NAME: dict[str, str] = {
    "_softmax": "softmax",
    "_safe_softmax": "softmax",
    "_log_softmax": "log_softmax",
    "native_layer_norm": "layer_norm",
    "native_group_norm": "group_norm",
    "native_batch_norm": "batch_norm",
    "_native_batch_norm_legit": "batch_norm",
    "_native_batch_norm_legit_functional": "batch_norm",
    "_native_batch_norm_legit_no_training": "batch_norm",
    "_batch_norm_with_update": "batch_norm",
    "_batch_norm_no_update": "batch_norm",
    "_fused_rms_norm": "rms_norm",
    "max_pool2d_with_indices": "max_pool2d",
    "max_pool3d_with_indices": "max_pool3d",
    "_adaptive_avg_pool2d": "adaptive_avg_pool2d",
    "_adaptive_avg_pool3d": "adaptive_avg_pool3d",
    "amax": "max",
    "amin": "min",
    "linalg_vector_norm": "norm",
    "frobenius_norm": "norm",
    "nll_loss_forward": "nll_loss",
    "nll_loss2d_forward": "nll_loss",
    "_cummax_helper": "cummax",
    "_cummin_helper": "cummin",
    "clamp_min": "clamp",
    "clamp_max": "clamp",
    "rsub": "sub",
    "true_divide": "div",
    "multiply": "mul",
    "subtract": "sub",
    "divide": "div",
    "addmm": "matmul",
    "mm": "matmul",
    "_addmm_activation": "linear",
    "_scaled_dot_product_flash_attention_for_cpu": "scaled_dot_product_attention",
    "_scaled_dot_product_flash_attention": "scaled_dot_product_attention",
    "_scaled_dot_product_efficient_attention": "scaled_dot_product_attention",
    "_scaled_dot_product_cudnn_attention": "scaled_dot_product_attention",
    "_scaled_dot_product_attention_math": "scaled_dot_product_attention",
    "_embedding_bag": "embedding_bag",
    "index_select": "index_select",
}

# Pointwise ops that torch does not tag as such.
EXTRA_POINTWISE: frozenset[str] = frozenset(
    "hardswish hardsigmoid tril triu silu mish gelu log_sigmoid_forward where masked_fill dropout "
    "native_dropout glu prelu _prelu_kernel rrelu_with_noise".split()
)


def base_name(name: str) -> str:
    """Strip the in-place suffix: ``relu_`` -> ``relu`` (but ``_softmax`` keeps its prefix)."""
    if name.endswith("_") and not name.endswith("__") and len(name) > 1:
        return name[:-1]
    return name


def op_type_of(name: str) -> str:
    """The op type of an aten op (overload-packet name); pointwise and unknown ops are elementwise."""
    return TYPE_OF.get(name) or TYPE_OF.get(base_name(name)) or "elementwise"


def common_name(name: str) -> str:
    """The readable name of an aten op: ``_softmax`` -> ``softmax``, ``relu_`` -> ``relu``."""
    if name in COMMON_NAME:
        return COMMON_NAME[name]
    b = base_name(name)
    return COMMON_NAME.get(b, b).lstrip("_")


def is_view(name: str) -> bool:
    """True for layout-only ops (views, copies, dtype casts)."""
    return name in VIEW_OPS


def is_factory(name: str) -> bool:
    """True for ops that build a tensor from scalars and shapes."""
    return name in FACTORY_OPS or base_name(name) in FACTORY_OPS

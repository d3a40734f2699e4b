// Comparisons as the sign of a subtraction one bit wider than their operands: the carry
// out of a carry chain, which is how an ALM's chain can end a comparison. Left alone,
// Yosys' alumacc builds <= and >= from the chain's per-bit XORs as well (an equality),
// which the LUT mapping then puts after the chain: a 32-bit >= between registers
// measured 5 levels, and 3 as a subtraction's sign (the chain's 2 and a LUT). The
// timing estimate maps $lt, $le, $gt and $ge with this before alumacc runs.
(* techmap_celltype = "$lt $le $gt $ge" *)
module _compare_as_carry (A, B, Y);
  parameter A_SIGNED = 0;
  parameter B_SIGNED = 0;
  parameter A_WIDTH = 1;
  parameter B_WIDTH = 1;
  parameter Y_WIDTH = 1;
  parameter _TECHMAP_CELLTYPE_ = "";
  // One bit wider than the wider operand: the difference's top bit is its sign.
  localparam W = (A_WIDTH > B_WIDTH ? A_WIDTH : B_WIDTH) + 1;
  input [A_WIDTH-1:0] A;
  input [B_WIDTH-1:0] B;
  output [Y_WIDTH-1:0] Y;
  wire [W-1:0] a;
  wire [W-1:0] b;
  generate
    if (A_SIGNED && B_SIGNED) begin : signed_operands
      assign a = {{(W-A_WIDTH){A[A_WIDTH-1]}}, A};
      assign b = {{(W-B_WIDTH){B[B_WIDTH-1]}}, B};
    end else begin : unsigned_operands
      assign a = {{(W-A_WIDTH){1'b0}}, A};
      assign b = {{(W-B_WIDTH){1'b0}}, B};
    end
  endgenerate
  wire [W-1:0] a_minus_b = a - b;
  wire [W-1:0] b_minus_a = b - a;
  generate
    if (_TECHMAP_CELLTYPE_ == "$lt") begin : lt
      assign Y = a_minus_b[W-1];
    end else if (_TECHMAP_CELLTYPE_ == "$ge") begin : ge
      assign Y = !a_minus_b[W-1];
    end else if (_TECHMAP_CELLTYPE_ == "$gt") begin : gt
      assign Y = b_minus_a[W-1];
    end else begin : le
      assign Y = !b_minus_a[W-1];
    end
  endgenerate
endmodule

/**
 * `-o csv-br` is for people with a spreadsheet in Portuguese: its header names and the values of its
 * enumerated columns are Portuguese words, the same for a column of the same meaning in every command
 * (`amount` and `Amount` are both `Valor`). `-o csv`, TSV and JSON keep the API's and pix's English names:
 * scripts read those (contract §3). A name or value with no entry here is written as it is.
 */

/** Header names, by the English header lower-cased (statement's machine names and the lists' titles). */
const HEADERS: Readonly<Record<string, string>> = {
  id: 'Id',
  confirmedat: 'Data',
  date: 'Data',
  type: 'Tipo',
  kind: 'Tipo',
  amount: 'Valor',
  fee: 'Tarifa',
  method: 'Meio',
  counterpartyname: 'Contraparte',
  counterparty: 'Contraparte',
  counterpartydocument: 'Documento da contraparte',
  counterpartybank: 'Banco da contraparte',
  status: 'Situação',
  state: 'Situação',
  period: 'Período',
  count: 'Lançamentos',
  income: 'Entradas',
  outcome: 'Saídas',
  fees: 'Tarifas',
  net: 'Líquido',
  key: 'Chave',
  created: 'Criada em',
  started: 'Início',
  'due/expires': 'Vencimento ou expiração',
  txid: 'Txid',
  'paid by': 'Pago por',
  resolution: 'Resolução',
  receiver: 'Recebedor',
  reference: 'Referência',
  profile: 'Perfil',
  row: 'Linha do lote',
  attempts: 'Tentativas',
  'last error': 'Último erro',
  document: 'Documento',
  institution: 'Instituição',
  endtoendid: 'EndToEndId',
  transferid: 'Id da transferência',
  error: 'Erro',
  description: 'Descrição',
  field: 'Campo',
  name: 'Nome',
  value: 'Conteúdo',
  meaning: 'Significado',
};

/** Values of enumerated columns: entry types and statuses, charge and journal states, key types. */
const VALUES: Readonly<Record<string, string>> = {
  INCOME: 'Entrada',
  OUTCOME: 'Saída',
  CONFIRMED: 'Confirmado',
  PENDING: 'Pendente',
  pending: 'pendente',
  paid: 'pago',
  probable: 'provável',
  ambiguous: 'ambíguo',
  expired: 'expirado',
  immediate: 'imediata',
  duedate: 'com vencimento',
  payment: 'pagamento',
  charge: 'cobrança',
  sending: 'enviando',
  done: 'concluído',
  failed: 'falhou',
  unknown: 'desconhecido',
  'not-paid': 'não pago',
  planned: 'planejado',
  already_paid: 'já pago',
  not_payable: 'não pagável',
  rejected: 'recusado',
  not_sent: 'não enviado',
  duplicate: 'duplicado',
  in_progress: 'em andamento',
  delivered: 'entregue',
  dead: 'descartado',
  EMAIL: 'E-mail',
  PHONE: 'Telefone',
  EVP: 'Chave aleatória',
};

export function portugueseHeader(header: string): string {
  return HEADERS[header.toLowerCase()] ?? header;
}

export function portugueseValue(value: string): string {
  return Object.hasOwn(VALUES, value) ? VALUES[value]! : value;
}
